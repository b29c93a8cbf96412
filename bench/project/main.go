// Command project measures skillpm's project commands end to end, as a
// user runs them: the built binary, a real OCI layout registry folder, and
// a project of 100 locked skills with dependencies.
//
//	CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o /tmp/ ./cmd/skillpm ./cmd/skillpm-full ./cmd/skillpm-sigstore
//	go run ./bench/project -skillpm /tmp/skillpm
//
// It prints the median wall time of: a cold 'skillpm install' (empty
// cache), a warm no-op 'skillpm install', 'skillpm install --frozen', and
// 'skillpm list' with 1,000 installed skills. Targets: warm no-op install
// and list of 1,000 at most 50 ms each.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillpm/skillpm/registry"
)

func main() {
	bin := flag.String("skillpm", "skillpm", "the skillpm binary to measure")
	runs := flag.Int("runs", 21, "runs per measurement (the median is printed)")
	n := flag.Int("skills", 100, "skills in the project")
	flag.Parse()
	ctx := context.Background()
	root, err := os.MkdirTemp("", "skillpm-bench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)

	// 100 skills: skill i depends on skill i+1 and i+2 (a deep DAG), each
	// with a few files; published once to an OCI layout folder.
	src, reg := filepath.Join(root, "src"), filepath.Join(root, "registry")
	client := registry.NewClient(registry.Options{})
	var wants []string
	for i := range *n {
		name := fmt.Sprintf("skill-%03d", i)
		var deps []string
		for _, j := range []int{i + 1, i + 2} {
			if j < *n {
				deps = append(deps, fmt.Sprintf("skill-%03d@^1.0", j))
			}
		}
		dir := filepath.Join(src, name)
		must(os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
		fm := fmt.Sprintf("---\nname: %s\ndescription: Benchmark skill %d. Use in benchmarks.\nversion: 1.0.%d\ndepends_on: [%s]\n---\n# %s\n%s\n",
			name, i, i, strings.Join(deps, ", "), name, strings.Repeat("Some instructions. ", 100))
		must(os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(fm), 0o644))
		must(os.WriteFile(filepath.Join(dir, "scripts/run.sh"), []byte("#!/bin/sh\necho "+name+"\n"), 0o755))
		pkg, err := registry.Pack(ctx, dir, registry.PackOptions{})
		must(err)
		ref, err := registry.ParseReference("oci:" + filepath.Join(reg, name))
		must(err)
		_, err = client.Publish(ctx, pkg, ref, registry.PublishOptions{})
		must(err)
		pkg.Close()
		if i < 10 {
			wants = append(wants, fmt.Sprintf("  %s: ^1.0.0\n", name))
		}
	}
	proj := filepath.Join(root, "project")
	must(os.MkdirAll(proj, 0o755))
	must(os.WriteFile(filepath.Join(proj, "skills.yaml"), []byte("registry: oci:../registry\nskills:\n"+strings.Join(wants, "")), 0o644))

	home := filepath.Join(root, "home")
	run := func(args ...string) time.Duration {
		cmd := exec.Command(*bin, args...)
		cmd.Dir = proj
		cmd.Env = append(os.Environ(), "SKILLPM_HOME="+home, "HOME="+root)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			log.Fatalf("skillpm %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return time.Since(start)
	}
	median := func(f func() time.Duration) time.Duration {
		var ds []time.Duration
		for range *runs {
			ds = append(ds, f())
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}

	cold := median(func() time.Duration {
		os.RemoveAll(home)
		for _, d := range []string{".claude", ".agents", "skills.lock"} {
			os.RemoveAll(filepath.Join(proj, d))
		}
		return run("install")
	})
	warm := median(func() time.Duration { return run("install") })
	frozen := median(func() time.Duration { return run("install", "--frozen") })
	report("install, cold (resolve + fetch + install %d skills into 2 targets)", cold, 0, *n)
	report("install, warm no-op (%d skills)", warm, 50*time.Millisecond, *n)
	report("install --frozen, warm no-op (%d skills)", frozen, 50*time.Millisecond, *n)

	// 1,000 installed skills for list.
	for i := range 1000 {
		d := filepath.Join(proj, "skills", fmt.Sprintf("hand-%04d", i))
		must(os.MkdirAll(d, 0o755))
		must(os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("---\nname: x\ndescription: y\n---\n"), 0o644))
	}
	list := median(func() time.Duration { return run("list", "--all") })
	report("list --all (%d installed skill folders)", list, 50*time.Millisecond, 1000+2*(*n))
}

func report(what string, d, target time.Duration, n int) {
	line := fmt.Sprintf("%-60s median %7.1f ms", fmt.Sprintf(what, n), float64(d.Microseconds())/1000)
	if target > 0 {
		verdict := "ok"
		if d > target {
			verdict = "OVER"
		}
		line += fmt.Sprintf("  (target <= %v: %s)", target, verdict)
	}
	fmt.Println(line)
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
