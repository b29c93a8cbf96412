package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/skillpm/skillpm/lockfile"
)

// UpToDate says yes exactly when a Sync would change nothing, and never
// writes: every way a target can drift from the lock makes it say no.
func TestUpToDate(t *testing.T) {
	f := newFixture(t)
	opts := Options{Targets: f.targets}
	l := f.lock("alpha@1.0.0", "beta@1.0.0")
	if ok, err := UpToDate(l, opts); ok || err != nil {
		t.Fatalf("before any install: UpToDate = %v, %v; want false", ok, err)
	}
	f.mustSync(l)
	before := f.snapshot()
	if ok, err := UpToDate(l, opts); !ok || err != nil {
		t.Fatalf("after install: UpToDate = %v, %v; want true", ok, err)
	}
	if f.snapshot() != before {
		t.Fatal("UpToDate wrote to a target")
	}
	if ok, _ := UpToDate(f.lock("alpha@1.0.0", "beta@2.0.0"), opts); ok {
		t.Error("another locked version: UpToDate = true")
	}
	if ok, _ := UpToDate(f.lock("alpha@1.0.0"), opts); ok {
		t.Error("a managed skill to remove: UpToDate = true")
	}
	if ok, _ := UpToDate(f.lock("alpha@1.0.0", "beta@1.0.0", "gamma@1.0.0"), opts); ok {
		t.Error("a skill to install: UpToDate = true")
	}

	// A touched file must be read to be judged: Sync decides (and
	// records the new fingerprint, so the next check is cheap again).
	// Without a memo folder to know the tree by (trees.go), the touched
	// folder is compared with the locked content: a repair.
	script := filepath.Join(f.targets[1], "beta", "scripts", "run.sh")
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(script, later, later); err != nil {
		t.Fatal(err)
	}
	if ok, _ := UpToDate(l, opts); ok {
		t.Error("a touched file: UpToDate = true")
	}
	if res := f.mustSync(l); res.Count(ActionUnchanged) != 3 || res.Count(ActionRepair) != 1 {
		t.Fatalf("Sync after a touch: %+v; want 3 unchanged, 1 repair", res.Changes)
	}
	if ok, err := UpToDate(l, opts); !ok || err != nil {
		t.Errorf("after Sync recorded the touch: UpToDate = %v, %v; want true", ok, err)
	}

	// An edit, even one that keeps the size.
	if err := os.WriteFile(script, []byte("echo 1.0.9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ok, _ := UpToDate(l, opts); ok {
		t.Error("an edited file: UpToDate = true")
	}
	if err := os.RemoveAll(filepath.Join(f.targets[0], "alpha")); err != nil {
		t.Fatal(err)
	}
	if ok, _ := UpToDate(l, opts); ok {
		t.Error("a removed folder: UpToDate = true")
	}
}

// Every local edit of an installed skill, in either target, makes
// UpToDate say no, however it hides from a quick look: the warm install
// answers from UpToDate, so an edit it missed would go unreported.
func TestUpToDateSeesEdits(t *testing.T) {
	past := time.Now().Add(-24 * time.Hour)
	edits := map[string]func(skill string) error{
		"edited in place, same size, mtime set back": func(d string) error {
			p := filepath.Join(d, "scripts", "run.sh")
			if err := os.WriteFile(p, []byte("echo 9.9.9\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, past, past)
		},
		"SKILL.md edited, mtime set back": func(d string) error {
			p := filepath.Join(d, "SKILL.md")
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b[len(b)-2] ^= 1
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, past, past)
		},
		"file added at the top": func(d string) error {
			return os.WriteFile(filepath.Join(d, "notes.md"), nil, 0o644)
		},
		"file added in a folder": func(d string) error {
			return os.WriteFile(filepath.Join(d, "scripts", "new.sh"), nil, 0o644)
		},
		"empty folder added": func(d string) error { return os.Mkdir(filepath.Join(d, "empty"), 0o755) },
		"file removed":       func(d string) error { return os.Remove(filepath.Join(d, "scripts", "run.sh")) },
		"SKILL.md removed":   func(d string) error { return os.Remove(filepath.Join(d, "SKILL.md")) },
		"mode changed":       func(d string) error { return os.Chmod(filepath.Join(d, "scripts", "run.sh"), 0o755) },
		"folder replaced by a copy, file times kept": func(d string) error {
			old := filepath.Join(d, "scripts")
			p := filepath.Join(old, "run.sh")
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.RemoveAll(old); err != nil {
				return err
			}
			if err := os.Mkdir(old, 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, fi.Mode()); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		},
		"folder replaced by a link": func(d string) error {
			other := filepath.Join(filepath.Dir(d), "..", "elsewhere")
			if err := os.Rename(filepath.Join(d, "scripts"), other); err != nil {
				return err
			}
			return os.Symlink(other, filepath.Join(d, "scripts"))
		},
		"skill folder replaced by a link": func(d string) error {
			other := filepath.Join(filepath.Dir(d), "..", "moved")
			if err := os.Rename(d, other); err != nil {
				return err
			}
			return os.Symlink(other, d)
		},
		"skill folder replaced by a file": func(d string) error {
			if err := os.RemoveAll(d); err != nil {
				return err
			}
			return os.WriteFile(d, nil, 0o644)
		},
		"skill folder removed": func(d string) error { return os.RemoveAll(d) },
	}
	if runtime.GOOS != "windows" { // only the ctime tells these
		edits["edited in place, same size, its own mtime put back"] = func(d string) error {
			p := filepath.Join(d, "scripts", "run.sh")
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, []byte("echo 9.9.9\n"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}
	}
	for name, edit := range edits {
		for target := range 2 {
			t.Run(fmt.Sprintf("%s in target %d", name, target), func(t *testing.T) {
				f := newFixture(t)
				opts := Options{Targets: f.targets, RecordMemo: t.TempDir()}
				l := f.lock("alpha@1.0.0", "beta@1.0.0")
				f.mustSync(l)
				if ok, err := UpToDate(l, opts); !ok || err != nil {
					t.Fatalf("after install: UpToDate = %v, %v; want true", ok, err)
				}
				if err := edit(filepath.Join(f.targets[target], "beta")); err != nil {
					t.Fatal(err)
				}
				if ok, _ := UpToDate(l, opts); ok {
					t.Error("UpToDate = true; want false")
				}
			})
		}
	}
}

// A target that links out of its bounds is an error, whether the link
// leads somewhere or to nothing.
func TestUpToDateBounds(t *testing.T) {
	f := newFixture(t)
	l := f.lock("alpha@1.0.0")
	f.mustSync(l)
	b := Bounds{Root: f.project}
	if ok, err := UpToDate(l, Options{Targets: f.targets, Bounds: b}); !ok || err != nil {
		t.Fatalf("inside its bounds: UpToDate = %v, %v; want true", ok, err)
	}
	outside := t.TempDir()
	if err := os.Rename(f.targets[1], filepath.Join(outside, "skills")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "skills"), f.targets[1]); err != nil {
		t.Fatal(err)
	}
	var oe *OutsideError
	if ok, err := UpToDate(l, Options{Targets: f.targets, Bounds: b}); ok || !errors.As(err, &oe) {
		t.Errorf("a target linking out: UpToDate = %v, %v; want an OutsideError", ok, err)
	}
	if err := os.Remove(f.targets[1]); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "nothing"), f.targets[1]); err != nil {
		t.Fatal(err)
	}
	if ok, err := UpToDate(&lockfile.File{}, Options{Targets: f.targets[1:], Bounds: b}); ok || !errors.As(err, &oe) {
		t.Errorf("a target linking to nothing: UpToDate = %v, %v; want an OutsideError", ok, err)
	}
}
