package install

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// StatTree's fast walk gives the fingerprint the portable walk and
// HashTree (whose Stat the install record keeps) give, and notices what
// an edit changes.
func TestStatTreeSameAsWalk(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, data string, mode os.FileMode) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("SKILL.md", "---\nname: x\n---\n", 0o644)
	write("a/b.txt", "b", 0o644)
	write("a-b/c.txt", "c", 0o600)
	write("a.txt", "a", 0o644)
	write("scripts/run.sh", "#!/bin/sh\n", 0o755)
	write("deep/er/est/f", "f", 0o644)
	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	check := func(what string) string {
		t.Helper()
		fast, err := StatTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		walk, err := statTreeWalk(dir)
		if err != nil {
			t.Fatal(err)
		}
		ht, err := HashTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		if fast != walk || fast != ht.Stat {
			t.Errorf("%s: StatTree %s, portable walk %s, HashTree %s; want one fingerprint", what, fast, walk, ht.Stat)
		}
		return fast
	}
	before := check("tree")
	// Same size, new mtime: the fingerprint changes.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "a", "b.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if after := check("touched"); after == before {
		t.Error("a touched file left the fingerprint unchanged")
	}
	// A mode change alone changes it too.
	prev := check("mode")
	if err := os.Chmod(filepath.Join(dir, "a.txt"), 0o755); err != nil {
		t.Fatal(err)
	}
	if after := check("chmod"); after == prev {
		t.Error("a mode change left the fingerprint unchanged")
	}
	// A symlinked skill folder is walked (and fingerprinted) as the
	// portable walk does: not followed.
	link := filepath.Join(t.TempDir(), "skill")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	fast, err1 := StatTree(link)
	walk, err2 := statTreeWalk(link)
	if fast != walk || (err1 == nil) != (err2 == nil) {
		t.Errorf("symlinked folder: StatTree %q, %v; portable %q, %v", fast, err1, walk, err2)
	}
}

func BenchmarkStatTree(b *testing.B) {
	dir := b.TempDir()
	for _, rel := range []string{"SKILL.md", "reference.md", "scripts/run.sh", "assets/a.bin"} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(rel), 0o644)
	}
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			StatTree(dir)
		}
	})
	b.Run("walk", func(b *testing.B) {
		for b.Loop() {
			statTreeWalk(dir)
		}
	})
}
