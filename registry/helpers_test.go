package registry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// writeSkill creates a small skill folder called name in dir/name with
// the given extra files (path -> content) and returns its path.
func writeSkill(t testing.TB, dir, name, version string, extra map[string]string) string {
	t.Helper()
	root := filepath.Join(dir, name)
	files := map[string]string{
		"SKILL.md": "---\nname: " + name + "\ndescription: Test skill " + name + ". Use it in tests.\nversion: " + version + "\nlicense: MIT\n---\n\n# " + name + "\n\nDo the thing.\n",
	}
	for k, v := range extra {
		files[k] = v
	}
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// entry is one tar entry for archive.
type entry struct {
	name     string
	body     string
	typ      byte
	link     string
	mode     int64
	size     int64 // when set, overrides len(body) in the header
	noHeader bool
}

// archive builds a tar+gzip stream.
func archive(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		size := int64(len(e.body))
		if e.size > 0 {
			size = e.size
		}
		if typ != tar.TypeReg {
			size = 0
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.name, Typeflag: typ, Linkname: e.link, Mode: mode, Size: size}); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg && e.size == 0 {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// listTree returns every path under dir, relative and sorted.
func listTree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(out)
	return out
}

var bg = context.Background()

func fprintf(w io.Writer, format string, args ...any) { fmt.Fprintf(w, format, args...) }

func itoa(n int) string { return fmt.Sprint(n) }
