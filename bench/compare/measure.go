package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// sample is one run of one variant.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // peak resident set, bytes
	err       error
	out       []byte
}

// variant is one thing measured; run prepares (untimed) and runs it once.
type variant struct {
	name string
	run  func() sample
}

// result is a variant's medians over the rounds, and its largest RSS.
type result struct {
	name      string
	wall, cpu time.Duration
	rss       int64
}

// alternate runs every variant once per round, rounds times, so that a
// change in the machine's load falls on all of them alike.
func alternate(vs []variant, rounds int) []result {
	walls := make([][]time.Duration, len(vs))
	cpus := make([][]time.Duration, len(vs))
	rss := make([]int64, len(vs))
	for range rounds {
		for i, v := range vs {
			s := v.run()
			if s.err != nil {
				fmt.Fprintf(os.Stderr, "bench/compare: %s: %v\n%s\n", v.name, s.err, s.out)
				os.Exit(1)
			}
			walls[i] = append(walls[i], s.wall)
			cpus[i] = append(cpus[i], s.cpu)
			rss[i] = max(rss[i], s.rss)
		}
	}
	out := make([]result, len(vs))
	for i, v := range vs {
		out[i] = result{name: v.name, wall: median(walls[i]), cpu: median(cpus[i]), rss: rss[i]}
	}
	return out
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// exec runs bin in dir, through bench/rusage, with env added to this
// process's environment, and returns its wall time, CPU time and peak RSS
// as the wrapper measured them (so the wrapper's own start is not in
// them).
func (b *bench) exec(dir string, env []string, bin string, args ...string) sample {
	stats := filepath.Join(b.work, "rusage.txt")
	os.Remove(stats)
	cmd := exec.Command(b.rusage, append([]string{"-o", stats, "--", bin}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	s := sample{out: out.Bytes()}
	if err != nil {
		s.err = fmt.Errorf("%s %s: %w", filepath.Base(bin), strings.Join(args, " "), err)
		return s
	}
	data, err := os.ReadFile(stats)
	if err != nil {
		s.err = err
		return s
	}
	var wall, cpu, rss int64
	if _, err := fmt.Sscan(string(data), &wall, &cpu, &rss); err != nil {
		s.err = fmt.Errorf("%s: %w", stats, err)
		return s
	}
	s.wall, s.cpu, s.rss = time.Duration(wall), time.Duration(cpu), rss
	return s
}

func header(ratio string) {
	fmt.Printf("  %-48s %10s %10s %8s %8s  %s\n", "", "wall", "cpu", "wall", "cpu", "peak RSS")
	fmt.Printf("  %-48s %10s %10s %8s %8s\n", "", "", "", ratio, "")
}

// row prints r and its ratios to base.
func row(r, base result, note string) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	fmt.Printf("  %-48s %10s %10s %8s %8s  %5.1f MB  %s\n", r.name, ms(r.wall), ms(r.cpu),
		ratio(r.wall, base.wall), ratio(r.cpu, base.cpu), float64(r.rss)/(1<<20), note)
}

// floorNote gives r as a ratio of its stat floor, for a row's note.
func floorNote(r, floor result) string {
	return fmt.Sprintf("%s wall, %s cpu of the stat floor", ratio(r.wall, floor.wall), ratio(r.cpu, floor.cpu))
}

func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(a)/float64(b))
}
