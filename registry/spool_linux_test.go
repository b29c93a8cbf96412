package registry

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/opencontainers/go-digest"
)

// On Linux the cache writes through unnamed files: a regression to
// named ones would go unnoticed otherwise, as both work.
func TestCacheUsesUnnamedFiles(t *testing.T) {
	if !unnamedHere(t) {
		t.Skipf("the filesystem of %s has no O_TMPFILE", os.TempDir())
	}
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.NewWriter(digest.FromString("x"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if w.s.tmp != "" || !unnamedOK.Load() {
		t.Errorf("the cache spools through %s, want an unnamed file (O_TMPFILE)", w.s.tmp)
	}
}

// Where an unnamed file cannot be linked (no /proc, or a sandbox that
// hides the process's files), its content is copied into a named file,
// and later spools are named from the start.
func TestCacheWithoutProc(t *testing.T) {
	if !unnamedHere(t) {
		t.Skipf("the filesystem of %s has no O_TMPFILE", os.TempDir())
	}
	for name, fd := range map[string]string{
		"no /proc":     filepath.Join(t.TempDir(), "no-proc"),
		"hidden files": t.TempDir(), // exists, but holds no fd entries
	} {
		t.Run(name, func(t *testing.T) { testCacheLinkRefused(t, fd) })
	}
}

func testCacheLinkRefused(t *testing.T, fd string) {
	was, wasOK := procFD, unnamedOK.Load()
	t.Cleanup(func() { procFD = was; unnamedOK.Store(wasOK) })
	procFD = fd
	unnamedOK.Store(true)

	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("spooled "), 20000) // more than one copy buffer
	d := digest.FromBytes(data)
	w, err := c.NewWriter(d, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if w.s.tmp != "" {
		t.Fatal("the first spool is named already")
	}
	w.Write(data)
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, err := c.ReadAll(d, int64(len(data))); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("ReadAll after commit: %d bytes, %v", len(b), err)
	}
	if got := blobDir(t, c); len(got) != 1 {
		t.Errorf("blob folder = %q, want just the entry", got)
	}
	if unnamedOK.Load() {
		t.Error("unnamed files still in use after the platform refused one")
	}
	w, err = c.NewWriter(digest.FromString("y"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := os.Stat(w.s.tmp); w.s.tmp == "" || err != nil {
		t.Errorf("the next spool is %q (%v), want a named file", w.s.tmp, err)
	}
}
