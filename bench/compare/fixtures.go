package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
)

// startRegistry starts the distribution binary on a free loopback port
// with filesystem storage under dir and returns its host:port and a
// function that stops it. (Its in-memory driver copies a blob on every
// chunk of an upload, which makes publishing a 200 MB skill take minutes.)
func startRegistry(ctx context.Context, bin, dir string) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	host := l.Addr().String()
	l.Close()
	config := filepath.Join(dir, "registry.yml")
	conf := fmt.Sprintf("version: 0.1\nstorage: {filesystem: {rootdirectory: %s}}\nhttp: {addr: %s, secret: bench}\nlog: {level: error, accesslog: {disabled: true}}\n",
		filepath.Join(dir, "registry"), host)
	if err := os.WriteFile(config, []byte(conf), 0o644); err != nil {
		return "", nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "registry.log"))
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command(bin, "serve", config)
	cmd.Stdout, cmd.Stderr = logf, logf
	// distribution v3 exports traces by default, to nothing here.
	cmd.Env = append(os.Environ(), "OTEL_SDK_DISABLED=true", "OTEL_TRACES_EXPORTER=none",
		"OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none")
	if err := cmd.Start(); err != nil {
		logf.Close()
		return "", nil, fmt.Errorf("start %s: %w", bin, err)
	}
	stop := func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get("http://" + host + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return host, stop, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			stop()
			return "", nil, fmt.Errorf("registry %s did not answer on %s (log: %s)", bin, host, logf.Name())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// writeSkill writes a synthetic skill of about size bytes: a SKILL.md, a
// reference document and a script (text, compressible), and a binary
// asset of random bytes (incompressible) making up the rest.
func writeSkill(dir, name string, size int, rng *rand.Rand) error {
	text := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			fmt.Fprintf(&b, "Step %d: read the input, check it against the schema and write the report for %s.\n", rng.IntN(1000), name)
		}
		return b.String()
	}
	files := map[string]string{
		"SKILL.md": fmt.Sprintf("---\nname: %s\ndescription: Synthetic benchmark skill %s. Use in benchmarks only.\nversion: 1.0.0\n---\n# %s\n\n%s",
			name, name, name, text(6<<10)),
		"references/guide.md": text(40 << 10),
		"scripts/run.py":      "#!/usr/bin/env python3\n\"\"\"Benchmark script.\"\"\"\n" + strings.Repeat("print('step')\n", 300),
	}
	textBytes := 0
	for rel, content := range files {
		if err := writeFile(filepath.Join(dir, rel), []byte(content), 0o644); err != nil {
			return err
		}
		textBytes += len(content)
	}
	asset := make([]byte, max(size-textBytes, 1024))
	for i := 0; i+8 <= len(asset); i += 8 {
		v := rng.Uint64()
		for j := range 8 {
			asset[i+j] = byte(v >> (8 * j))
		}
	}
	return writeFile(filepath.Join(dir, "assets", "model.bin"), asset, 0o644)
}

func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, mode)
}

// published is one skill in the registry and the URLs the floor fetches.
type published struct {
	name string
	ref  registry.Reference
	urls []string // manifest, config, layers
}

// publish packs and pushes the skills in src (one folder each) to
// host/prefix/NAME:1.0.0, eight at a time.
func publish(ctx context.Context, host, prefix, src string, names []string) ([]published, error) {
	client := registry.NewClient(registry.Options{PlainHTTPHosts: []string{host}})
	out := make([]published, len(names))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, name := range names {
		g.Go(func() error {
			ref, err := registry.ParseReference(host + "/" + prefix + "/" + name)
			if err != nil {
				return err
			}
			p, err := registry.Pack(ctx, filepath.Join(src, name), registry.PackOptions{})
			if err != nil {
				return fmt.Errorf("pack %s: %w", name, err)
			}
			defer p.Close()
			if _, err := client.Publish(ctx, p, ref, registry.PublishOptions{}); err != nil {
				return fmt.Errorf("publish %s: %w", name, err)
			}
			res, err := client.Resolve(ctx, ref.WithTag("1.0.0"))
			if err != nil {
				return err
			}
			base := "http://" + host + "/v2/" + ref.Repository
			urls := []string{base + "/manifests/1.0.0", base + "/blobs/" + res.Layout.Config.Digest.String()}
			for _, l := range res.Layout.Layers {
				urls = append(urls, base+"/blobs/"+l.Digest.String())
			}
			out[i] = published{name: name, ref: ref.WithTag("1.0.0"), urls: urls}
			return nil
		})
	}
	return out, g.Wait()
}

// writeProject writes a project wanting every skill of prefix, and a
// SKILLPM_HOME whose user config lets skillpm speak plain HTTP to host.
func writeProject(dir, home, host, prefix string, skills []published) error {
	var b strings.Builder
	fmt.Fprintf(&b, "registry: %s/%s\nskills:\n", host, prefix)
	for _, s := range skills {
		fmt.Fprintf(&b, "  %s: ^1.0.0\n", s.name)
	}
	if err := writeFile(filepath.Join(dir, "skills.yaml"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return writeHomeConfig(home, host)
}

func writeHomeConfig(home, host string) error {
	return writeFile(filepath.Join(home, "config.yaml"), []byte(fmt.Sprintf("plain_http: [%q]\n", host)), 0o644)
}

// writeStartFixtures writes what the process-start rows read: a project
// with n hand-authored skills in .claude/skills, each declaring a tool in
// tools.json, and a search index of searchN skills in home.
func writeStartFixtures(proj, home string, n, searchN int) error {
	if err := writeFile(filepath.Join(proj, "skills.yaml"), []byte("skills: {}\n"), 0o644); err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("local-%04d", i)
		dir := filepath.Join(proj, ".claude", "skills", name)
		md := fmt.Sprintf("---\nname: %s\ndescription: Local skill %d. Use when the user asks about topic %d.\n---\n# %s\n\nCall the tool.\n", name, i, i%97, name)
		tools := fmt.Sprintf(`[{"name": "tool_%04d", "description": "Does thing %d.", "script": "scripts/run.sh", "parameters": {"text": {"type": "string", "description": "The input."}}}]`, i, i)
		if err := writeFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, "tools.json"), []byte(tools), 0o644); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dir, "scripts", "run.sh"), []byte("#!/bin/sh\necho ok\n"), 0o755); err != nil {
			return err
		}
	}
	entries := make([]index.Entry, searchN)
	for i := range entries {
		entries[i] = index.Entry{
			Repository:  fmt.Sprintf("ghcr.io/acme/skills/skill-%05d", i),
			Name:        fmt.Sprintf("skill-%05d", i),
			Version:     fmt.Sprintf("1.%d.0", i%7),
			Description: fmt.Sprintf("Skill %d works with documents, spreadsheets and PDF files. Use when the user asks about topic %d.", i, i%97),
			Tags:        []string{"docs", fmt.Sprintf("topic-%d", i%97)},
			Tools:       []string{fmt.Sprintf("tool-%05d", i)},
		}
	}
	if err := os.MkdirAll(home, 0o755); err != nil {
		return err
	}
	return index.PutCatalog(filepath.Join(home, index.FileName), entries, nil, 0)
}

// writeCheckPaths writes to file what bench/compare/checkfloor reads for
// the project proj: for each of the default targets that exists, a
// block of the target (relative to proj) and every folder and file its
// installed skills hold (relative to the target), one per line; blocks
// are separated by an empty line. It returns how many paths it wrote.
// The target's own dot files (the install record) are no skill's.
func writeCheckPaths(proj, file string) (int, error) {
	var b strings.Builder
	n := 0
	for _, t := range project.DefaultTargets() {
		root := filepath.Join(proj, t)
		if _, err := os.Stat(root); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(t + "\n")
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == root {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			if filepath.Dir(rel) == "." && (rel[0] == '.' || !d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			b.WriteString(filepath.ToSlash(rel) + "\n")
			n++
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	return n, writeFile(file, []byte(b.String()), 0o644)
}
