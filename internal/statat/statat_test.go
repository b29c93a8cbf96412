package statat

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
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

// TestStatEach checks that StatEach answers each name once, as Stat does,
// also when the names are many enough to be spread over goroutines.
func TestStatEach(t *testing.T) {
	root := t.TempDir()
	var names []string
	for i := range 3*perWorker + 5 {
		name := fmt.Sprintf("s%03d/SKILL.md", i)
		names = append(names, name)
		if i%7 == 3 {
			continue // missing
		}
		if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("s%03d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), make([]byte, i), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, n := range []int{0, 1, perWorker, len(names)} {
		var mu sync.Mutex
		calls := make([]int, n)
		d.StatEach(names[:n], func(i int, fi fs.FileInfo, err error) {
			mu.Lock()
			calls[i]++
			mu.Unlock()
			want, werr := os.Stat(filepath.Join(root, filepath.FromSlash(names[i])))
			switch {
			case werr != nil:
				if !errors.Is(err, fs.ErrNotExist) || fi != nil {
					t.Errorf("%s: %v, %v; want not found", names[i], fi, err)
				}
			case err != nil || fi.Size() != want.Size() || !fi.ModTime().Equal(want.ModTime()):
				t.Errorf("%s: %v, %v; want size %d", names[i], fi, err, want.Size())
			}
		})
		for i, c := range calls {
			if c != 1 {
				t.Errorf("%d names: %s answered %d times", n, names[i], c)
			}
		}
	}
}
