package statat

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// Stat answers as os.Stat does for a file, a folder, a file below a
// subfolder, a link (followed) and a missing name.
func TestStatIsOsStat(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "skill")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "SKILL.md"), []byte("---\nname: skill\n---\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	names := []string{"skill", "skill/SKILL.md"}
	if os.Symlink("skill", filepath.Join(root, "link")) == nil {
		names = append(names, "link", "link/SKILL.md")
	}
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, name := range names {
		want, err := os.Stat(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Stat(name)
		if err != nil {
			t.Fatalf("Stat(%q): %v", name, err)
		}
		if got.Name() != want.Name() || got.Size() != want.Size() || got.Mode() != want.Mode() ||
			!got.ModTime().Equal(want.ModTime()) || got.IsDir() != want.IsDir() {
			t.Errorf("Stat(%q) = %s %d %v %v; want %s %d %v %v", name, got.Name(), got.Size(), got.Mode(), got.ModTime(),
				want.Name(), want.Size(), want.Mode(), want.ModTime())
		}
		sameSys(t, name, got, want)
	}
	_, err = d.Stat("skill/tools.json")
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Path != filepath.Join(sub, "tools.json") {
		t.Errorf("Stat of a missing file: %v; want a *fs.PathError naming %s, fs.ErrNotExist", err, filepath.Join(sub, "tools.json"))
	}
	ents, err := d.Names()
	if want := len(names) / 2; err != nil || len(ents) != want {
		t.Errorf("Names = %d entries, %v; want %d", len(ents), err, want)
	}
}
