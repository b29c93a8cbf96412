package registry

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// forEachSpool runs fn with unnamed spools (where the platform and the
// filesystem of the test's temporary folder have them) and with named
// ones.
func forEachSpool(t *testing.T, fn func(t *testing.T, unnamed bool)) {
	modes := []bool{false}
	if unnamedHere(t) {
		modes = append(modes, true)
	}
	for _, unnamed := range modes {
		t.Run(map[bool]string{true: "unnamed", false: "named"}[unnamed], func(t *testing.T) {
			was := unnamedOK.Load()
			unnamedOK.Store(unnamed)
			t.Cleanup(func() { unnamedOK.Store(was) })
			fn(t, unnamed)
		})
	}
}

// unnamedHere reports whether unnamed files can be made where the test
// writes.
func unnamedHere(t *testing.T) bool {
	f, err := openUnnamed(t.TempDir())
	if err != nil {
		t.Logf("no unnamed files in %s: %v", os.TempDir(), err)
		return false
	}
	f.Close()
	return true
}

// closed reports whether the spool's file is closed.
func closed(w *BlobWriter) bool {
	_, err := w.s.f.Write([]byte("x"))
	return errors.Is(err, os.ErrClosed)
}

// blobDir lists the cache's blob folder.
func blobDir(t *testing.T, c *Cache) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(c.Dir(), "blobs", "sha256"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestCacheWriterCommitAndAbort(t *testing.T) {
	forEachSpool(t, func(t *testing.T, unnamed bool) {
		c, err := OpenCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		data := []byte("layer bytes")
		d := digest.FromBytes(data)

		w, err := c.NewWriter(d, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		got := blobDir(t, c)
		if unnamed && len(got) != 0 {
			t.Errorf("an unnamed spool shows in the blob folder before commit: %q", got)
		}
		if !unnamed && (len(got) != 1 || !strings.HasPrefix(got[0], ".ingest-")) {
			t.Errorf("blob folder while spooling = %q, want one .ingest- file", got)
		}
		if c.Has(d, int64(len(data))) {
			t.Error("the cache has the blob before commit")
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if !closed(w) {
			t.Error("the spool's file is open after commit")
		}
		if got := blobDir(t, c); len(got) != 1 || got[0] != d.Encoded() {
			t.Errorf("blob folder after commit = %q, want just %s", got, d.Encoded())
		}
		if b, err := c.ReadAll(d, 100); err != nil || !bytes.Equal(b, data) {
			t.Errorf("ReadAll after commit = %q, %v", b, err)
		}

		other := []byte("another layer")
		w, err = c.NewWriter(digest.FromBytes(other), int64(len(other)))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(other)
		w.Abort()
		if !closed(w) {
			t.Error("the spool's file is open after abort")
		}
		if got := blobDir(t, c); len(got) != 1 || got[0] != d.Encoded() {
			t.Errorf("blob folder after abort = %q, want just %s", got, d.Encoded())
		}
	})
}

// A cached entry that Has refuses (the wrong size) is replaced.
func TestCacheWriterReplacesEntry(t *testing.T) {
	forEachSpool(t, func(t *testing.T, unnamed bool) {
		c, err := OpenCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		data := []byte("the real content")
		d := digest.FromBytes(data)
		p := filepath.Join(c.Dir(), "blobs", "sha256", d.Encoded())
		if err := os.WriteFile(p, []byte("short"), 0o600); err != nil {
			t.Fatal(err)
		}
		w, err := c.NewWriter(d, int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(p); !bytes.Equal(b, data) {
			t.Errorf("entry = %q, want %q", b, data)
		}
		if got := blobDir(t, c); len(got) != 1 {
			t.Errorf("blob folder = %q, want just the entry", got)
		}
	})
}

// Put stores nothing when the content does not match.
func TestCachePutRefusesMismatch(t *testing.T) {
	forEachSpool(t, func(t *testing.T, unnamed bool) {
		c, err := OpenCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		data := []byte("manifest")
		d := digest.FromBytes(data)
		for _, tc := range []struct {
			body []byte
			size int64
		}{
			{[]byte("tampered"), int64(len(data))}, // same size, other digest
			{[]byte("manifest and more"), int64(len(data))},
			{data[:3], int64(len(data))},
		} {
			if err := c.Put(bg, d, tc.size, bytes.NewReader(tc.body)); !errors.Is(err, ErrIntegrity) {
				t.Errorf("Put(%q) = %v, want ErrIntegrity", tc.body, err)
			}
		}
		if got := blobDir(t, c); len(got) != 0 {
			t.Errorf("blob folder after refused Puts = %q, want empty", got)
		}
		if err := c.Put(bg, d, int64(len(data)), bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if got := blobDir(t, c); len(got) != 1 || got[0] != d.Encoded() {
			t.Errorf("blob folder = %q, want just %s", got, d.Encoded())
		}
	})
}

// Processes sharing the cache may commit the same blob at once: each
// commit succeeds and one intact entry remains.
func TestCacheConcurrentCommits(t *testing.T) {
	forEachSpool(t, func(t *testing.T, unnamed bool) {
		c, err := OpenCache(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		data := bytes.Repeat([]byte("shared layer "), 10000)
		d := digest.FromBytes(data)
		errs := make(chan error, 16)
		for range cap(errs) {
			go func() {
				w, err := c.NewWriter(d, int64(len(data)))
				if err == nil {
					w.Write(data)
					err = w.Commit()
				}
				errs <- err
			}()
		}
		for range cap(errs) {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		if got := blobDir(t, c); len(got) != 1 || got[0] != d.Encoded() {
			t.Errorf("blob folder = %q, want just %s", got, d.Encoded())
		}
		if !c.Verify(ocispec.Descriptor{Digest: d, Size: int64(len(data))}) {
			t.Error("the entry is not intact")
		}
	})
}
