// Command sources compares installing skills from a git monorepo with
// installing the same skills from an OCI registry, end to end, as a user
// runs them: the built binary, one git daemon on loopback serving one
// repository of N skills (each tagged NAME/v1.0.0), and one CNCF
// distribution registry on loopback holding the same N skills.
//
//	CGO_ENABLED=0 go build -tags urfave_cli_no_docs -o /tmp/ ./cmd/skillpm ./cmd/skillpm-full ./cmd/skillpm-sigstore
//	go run ./bench/sources -skillpm /tmp/skillpm
//
// It prints the median wall time of a cold install (empty cache: resolve,
// fetch, pack, install into 2 targets) and a warm no-op install for each
// source, and the ratio cold git / cold OCI. Targets: cold git within 2x
// cold OCI; warm no-op at most 50 ms.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
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
	regBin := flag.String("registry", filepath.Join(os.Getenv("HOME"), ".cache/skillpm-tools/bin/registry"), "the CNCF distribution binary")
	runs := flag.Int("runs", 7, "runs per measurement (the median is printed)")
	n := flag.Int("skills", 50, "skills in the repository and the registry")
	flag.Parse()
	ctx := context.Background()
	root, err := os.MkdirTemp("", "skillpm-bench-sources-")
	must(err)
	defer os.RemoveAll(root)

	// N skills in one git monorepo, and published to the registry.
	repo := filepath.Join(root, "git", "mono")
	must(os.MkdirAll(repo, 0o755))
	gitIn(repo, "init", "-q", "-b", "main")
	var names []string
	for i := range *n {
		name := fmt.Sprintf("skill-%03d", i)
		names = append(names, name)
		dir := filepath.Join(repo, "skills", name)
		must(os.MkdirAll(filepath.Join(dir, "scripts"), 0o755))
		fm := fmt.Sprintf("---\nname: %s\ndescription: Benchmark skill %d. Use in benchmarks.\nversion: 1.0.0\n---\n# %s\n%s\n",
			name, i, name, strings.Repeat("Some instructions. ", 100))
		must(os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(fm), 0o644))
		must(os.WriteFile(filepath.Join(dir, "scripts/run.sh"), []byte("#!/bin/sh\necho "+name+"\n"), 0o755))
	}
	gitIn(repo, "add", "-A")
	gitIn(repo, "commit", "-q", "-m", "skills")
	for _, name := range names {
		gitIn(repo, "tag", name+"/v1.0.0")
	}
	daemon, gitURL := startDaemon(filepath.Join(root, "git"))
	defer daemon.Process.Kill()
	reg, regAddr := startRegistry(*regBin, filepath.Join(root, "registry"))
	defer reg.Process.Kill()
	client := registry.NewClient(registry.Options{PlainHTTP: true})
	for _, name := range names {
		pkg, err := registry.Pack(ctx, filepath.Join(repo, "skills", name), registry.PackOptions{})
		must(err)
		ref, err := registry.ParseReference(regAddr + "/bench/" + name)
		must(err)
		_, err = client.Publish(ctx, pkg, ref, registry.PublishOptions{})
		must(err)
		pkg.Close()
	}

	var gitYAML, ociYAML strings.Builder
	gitYAML.WriteString("skills:\n")
	ociYAML.WriteString("registry: " + regAddr + "/bench\nskills:\n")
	for _, name := range names {
		fmt.Fprintf(&gitYAML, "  %s:\n    git: %s/mono\n    path: skills/%s\n    version: ^1.0.0\n", name, gitURL, name)
		fmt.Fprintf(&ociYAML, "  %s: ^1.0.0\n", name)
	}
	cfgHome := filepath.Join(root, "cfg")
	must(os.MkdirAll(filepath.Join(cfgHome, "skillpm"), 0o755))
	for kind, y := range map[string]string{"git": gitYAML.String(), "oci": ociYAML.String()} {
		must(os.MkdirAll(filepath.Join(root, kind), 0o755))
		must(os.WriteFile(filepath.Join(root, kind, "skills.yaml"), []byte(y), 0o644))
	}
	results := map[string][2]time.Duration{}
	for _, kind := range []string{"oci", "git"} {
		proj, home := filepath.Join(root, kind), filepath.Join(root, "home-"+kind)
		run := func(args ...string) time.Duration {
			cmd := exec.Command(*bin, append(args, "--plain-http")...)
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "SKILLPM_HOME="+home, "HOME="+root, "XDG_CONFIG_HOME="+cfgHome)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				log.Fatalf("skillpm %s (%s): %v\n%s", strings.Join(args, " "), kind, err, out)
			}
			return time.Since(start)
		}
		cold := median(*runs, func() time.Duration {
			os.RemoveAll(home)
			for _, d := range []string{".claude", ".agents", "skills.lock"} {
				os.RemoveAll(filepath.Join(proj, d))
			}
			return run("install")
		})
		warm := median(*runs, func() time.Duration { return run("install") })
		results[kind] = [2]time.Duration{cold, warm}
		report(fmt.Sprintf("%s: install, cold (%d skills, 2 targets)", kind, *n), cold, 0)
		report(fmt.Sprintf("%s: install, warm no-op (%d skills)", kind, *n), warm, 50*time.Millisecond)
	}
	ratio := float64(results["git"][0]) / float64(results["oci"][0])
	verdict := "ok"
	if ratio > 2 {
		verdict = "OVER"
	}
	fmt.Printf("cold git / cold OCI = %.2f (target <= 2: %s)\n", ratio, verdict)
}

func median(runs int, f func() time.Duration) time.Duration {
	var ds []time.Duration
	for range runs {
		ds = append(ds, f())
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2]
}

func gitIn(dir string, args ...string) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
		"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func freePort() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	defer l.Close()
	return l.Addr().String()
}

func startDaemon(base string) (*exec.Cmd, string) {
	addr := freePort()
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1", "--port="+port, "--base-path="+base, base)
	must(cmd.Start())
	waitDial(addr)
	return cmd, "git://" + addr
}

func startRegistry(bin, dir string) (*exec.Cmd, string) {
	addr := freePort()
	must(os.MkdirAll(filepath.Join(dir, "storage"), 0o755))
	cfg := fmt.Sprintf("version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: %s\n  secret: bench\n", filepath.Join(dir, "storage"), addr)
	must(os.WriteFile(filepath.Join(dir, "config.yml"), []byte(cfg), 0o644))
	cmd := exec.Command(bin, "serve", filepath.Join(dir, "config.yml"))
	must(cmd.Start())
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := http.Get("http://" + addr + "/v2/"); err == nil {
			r.Body.Close()
			return cmd, addr
		}
		time.Sleep(50 * time.Millisecond)
	}
	log.Fatal("the registry did not start")
	return nil, ""
}

func waitDial(addr string) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	log.Fatalf("nothing listens on %s", addr)
}

func report(what string, d, target time.Duration) {
	line := fmt.Sprintf("%-45s median %7.1f ms", what, float64(d.Microseconds())/1000)
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
