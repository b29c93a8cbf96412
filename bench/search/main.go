// Command search measures 'skillpm search' over 10,000 indexed skills as a
// user runs it: the built binary, process start included.
//
//	CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o /tmp/ ./cmd/skillpm ./cmd/skillpm-full ./cmd/skillpm-sigstore
//	go run ./bench/search -skillpm /tmp/skillpm
//
// Target: median at most 20 ms. It also prints the median of 'skillpm
// version', the floor any command pays to start.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"github.com/skillpm/skillpm/index"
)

func main() {
	bin := flag.String("skillpm", "skillpm", "the skillpm binary to measure")
	runs := flag.Int("runs", 51, "runs per measurement (the median is printed)")
	n := flag.Int("skills", 10000, "skills in the index")
	keep := flag.String("home", "", "build the index in `DIR` (SKILLPM_HOME) and keep it, for profiling")
	flag.Parse()
	home := *keep
	if home == "" {
		tmp, err := os.MkdirTemp("", "skillpm-bench-search-")
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		home = tmp
	} else if err := os.MkdirAll(home, 0o755); err != nil {
		log.Fatal(err)
	}
	var entries []index.Entry
	for i := range *n {
		entries = append(entries, index.Entry{
			Repository:  fmt.Sprintf("ghcr.io/acme/skills/skill-%05d", i),
			Name:        fmt.Sprintf("skill-%05d", i),
			Version:     fmt.Sprintf("1.%d.0", i%7),
			Description: fmt.Sprintf("Skill %d works with documents, spreadsheets and PDF files. Use when the user asks about topic %d.", i, i%97),
			Tags:        []string{"docs", fmt.Sprintf("topic-%d", i%97)},
			Tools:       []string{fmt.Sprintf("tool-%05d", i)},
		})
	}
	if err := index.PutCatalog(filepath.Join(home, index.FileName), entries, nil, 0); err != nil {
		log.Fatal(err)
	}
	median := func(args ...string) time.Duration {
		var ds []time.Duration
		for range *runs {
			cmd := exec.Command(*bin, args...)
			cmd.Env = append(os.Environ(), "SKILLPM_HOME="+home)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				log.Fatalf("skillpm %v: %v\n%s", args, err, out)
			}
			ds = append(ds, time.Since(start))
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	floor := median("version")
	for _, q := range [][]string{{"search", "skill-09999"}, {"search", "pdf", "topic-42"}, {"search", "--json", "spreadsheets"}} {
		d := median(q...)
		verdict := "ok"
		if d > 20*time.Millisecond {
			verdict = "OVER"
		}
		fmt.Printf("%-40s median %6.1f ms (process start alone: %.1f ms; target <= 20 ms: %s)\n", fmt.Sprint(q), ms(d), ms(floor), verdict)
	}
}
