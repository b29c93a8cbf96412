package frontdeps_test

import (
	"bytes"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/skillpm/skillpm/"

// front are the packages the quick commands run, relative to the module;
// every package they import, internal ones included, is checked too.
var front = []string{
	"skill", "lockfile", "install", "index", "catalog", "config", "project",
	"toolrun", "sandbox", "agent",
	// The front program itself and what it shares with skillpm-full.
	"cmd/skillpm", "internal/command",
}

// heavy are the import path prefixes the front packages must not link.
var heavy = []string{
	"oras.land/oras-go/",
	"github.com/sigstore/",
	"github.com/modelcontextprotocol/go-sdk/",
	"github.com/google/jsonschema-go/",
	"github.com/opencontainers/go-digest",
	"github.com/opencontainers/image-spec/",
	// urfave/cli's Markdown and man-page generator, which skillpm never
	// calls, and the parser it brings: out with the README's build tags.
	// The HTTP stack: only the sandbox's filtering proxy needs it, served
	// by skillpm-full (sandbox/netproxy).
	"net/http",
	"crypto/tls",
	"github.com/cpuguy83/go-md2man/",
	"github.com/russross/blackfriday/",
}

// tags are the build tags of the README's install line.
const tags = "urfave_cli_no_docs"

func isHeavy(path string) bool {
	return slices.ContainsFunc(heavy, func(p string) bool {
		return strings.HasPrefix(path+"/", p) || strings.HasPrefix(path, p)
	})
}

// TestFrontLinksNoHeavyDependency runs 'go list -deps' over the front
// packages and fails for each heavy package they reach, naming it and
// the chain of imports that reaches it from a front package.
func TestFrontLinksNoHeavyDependency(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		t.Fatalf("no go command at %s: %v", goBin, err)
	}
	var roots []string
	for _, p := range front {
		roots = append(roots, module+p)
	}
	args := append([]string{"list", "-deps", "-tags", tags, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, roots...)
	cmd := exec.Command(goBin, args...)
	cmd.Dir = filepath.Join("..", "..")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}

	// Breadth first from the front packages, stopping at heavy ones: each
	// heavy package reached is where skillpm's code lets one in, and the
	// path to it is the shortest chain of imports that does.
	via := map[string]string{}
	queue := slices.Clone(roots)
	for _, r := range roots {
		via[r] = ""
	}
	var entries []string
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if isHeavy(p) {
			entries = append(entries, p)
			continue
		}
		for _, q := range imports[p] {
			if _, seen := via[q]; !seen {
				via[q] = p
				queue = append(queue, q)
			}
		}
	}
	// Report by chain: one import of registry lets in a dozen packages.
	byChain := map[string][]string{}
	for _, h := range entries {
		var chain []string
		for p := via[h]; p != ""; p = via[p] {
			chain = append(chain, strings.TrimPrefix(p, module))
		}
		slices.Reverse(chain)
		key := strings.Join(chain, " -> ")
		byChain[key] = append(byChain[key], h)
	}
	for _, key := range slices.Sorted(maps.Keys(byChain)) {
		linked := byChain[key]
		slices.Sort(linked)
		t.Errorf("%s imports %s", key, strings.Join(linked, ", "))
	}
}
