package install

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// statUnchanged (the record-guided check, then the walk) says
// "unchanged" for an installed folder as HashTree recorded it, and
// "changed" for every kind of local edit, however the edit hides from
// the listed entries.
func TestStatUnchangedSeesEdits(t *testing.T) {
	past := time.Now().Add(-time.Hour)
	setup := func(t *testing.T) (string, *RecordSkill) {
		dir := filepath.Join(t.TempDir(), "skill")
		for rel, data := range map[string]string{
			"SKILL.md": "---\nname: x\n---\n", "a.txt": "a", "a-b/c.txt": "c",
			"references/guide.md": "guide", "scripts/run.sh": "#!/bin/sh\n", "deep/er/f": "f",
		} {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Symlink("a.txt", filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		// Timestamps in the past, so an edit now moves them.
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode()&os.ModeSymlink == 0 {
				os.Chtimes(p, past, past)
			}
			return nil
		})
		tr, err := HashTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		return dir, &RecordSkill{Tree: tr.Digest, Stat: tr.Stat, Files: tr.Files}
	}
	dir, r := setup(t)
	for _, fills := range []bool{false, true} {
		if runtime.GOOS == "linux" && !statListedAt(dir, r, fills) {
			t.Errorf("statListed (fills %v): an untouched folder is reported changed", fills)
		}
		if !statUnchanged(dir, r, fills) {
			t.Errorf("statUnchanged (fills %v): an untouched folder is reported changed", fills)
		}
	}
	edits := map[string]func(dir string) error{
		"file edited": func(d string) error {
			return os.WriteFile(filepath.Join(d, "references/guide.md"), []byte("GUIDE!"), 0o644)
		},
		"file added at the top": func(d string) error {
			return os.WriteFile(filepath.Join(d, "new.md"), nil, 0o644)
		},
		"file added in a folder": func(d string) error {
			return os.WriteFile(filepath.Join(d, "deep/er/g"), nil, 0o644)
		},
		"file removed":       func(d string) error { return os.Remove(filepath.Join(d, "scripts/run.sh")) },
		"empty folder added": func(d string) error { return os.Mkdir(filepath.Join(d, "empty"), 0o755) },
		"empty folder added below": func(d string) error {
			return os.Mkdir(filepath.Join(d, "deep/empty"), 0o755)
		},
		"mode changed": func(d string) error { return os.Chmod(filepath.Join(d, "a.txt"), 0o755) },
		"folder replaced by a link": func(d string) error {
			other := filepath.Join(filepath.Dir(d), "elsewhere")
			if err := os.Rename(filepath.Join(d, "references"), other); err != nil {
				return err
			}
			return os.Symlink(other, filepath.Join(d, "references"))
		},
		"link retargeted": func(d string) error {
			os.Remove(filepath.Join(d, "link"))
			return os.Symlink("SKILL.md", filepath.Join(d, "link"))
		},
	}
	if runtime.GOOS != "windows" {
		// Edits that keep every size and mtime: only the status-change
		// time, which no program sets back, tells them.
		edits["file edited in place, same size, mtime set back"] = func(d string) error {
			p := filepath.Join(d, "references/guide.md")
			if err := os.WriteFile(p, []byte("GUIDE"), 0o644); err != nil {
				return err
			}
			return os.Chtimes(p, past, past)
		}
		edits["file replaced by another of the same size and mtime"] = func(d string) error {
			p := filepath.Join(d, "scripts/run.sh")
			if err := os.WriteFile(p+".new", []byte("rm -rf ~/\n"), 0o644); err != nil {
				return err
			}
			if err := os.Chtimes(p+".new", past, past); err != nil {
				return err
			}
			if err := os.Rename(p+".new", p); err != nil {
				return err
			}
			return os.Chtimes(filepath.Join(d, "scripts"), past, past)
		}
	}
	for name, edit := range edits {
		t.Run(name, func(t *testing.T) {
			dir, r := setup(t)
			if err := edit(dir); err != nil {
				t.Fatal(err)
			}
			for _, fills := range []bool{false, true} {
				if statListedAt(dir, r, fills) {
					t.Errorf("statListed (fills %v): the edit was not seen", fills)
				}
				if statUnchanged(dir, r, fills) {
					t.Errorf("statUnchanged (fills %v): the edit was not seen", fills)
				}
			}
		})
	}
}

// statListedAt is statListed for the folder dir, without a folder memo.
func statListedAt(dir string, r *RecordSkill, fills bool) bool {
	ok, _ := cwdScanDir.statListed(&statScratch{}, dir, r.Files, r.Stat, fills, "", 0)
	return ok
}

// prescan marks exactly the unedited folders of a target, in parallel.
func TestPrescan(t *testing.T) {
	target := t.TempDir()
	rec := newRecord()
	past := time.Now().Add(-time.Hour)
	for i := range 40 {
		name := "s" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		dir := filepath.Join(target, name)
		os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(name), 0o644)
		os.WriteFile(filepath.Join(dir, "scripts", "run.sh"), []byte(name), 0o755)
		os.Chtimes(filepath.Join(dir, "scripts"), past, past)
		tr, err := HashTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		rec.Skills[name] = &RecordSkill{Version: "1.0.0", Tree: tr.Digest, Stat: tr.Stat, Files: tr.Files}
	}
	os.WriteFile(filepath.Join(target, "sba", "scripts", "run.sh"), []byte("edited"), 0o755)
	os.WriteFile(filepath.Join(target, "sca", "scripts", "new"), nil, 0o644)
	rec.Skills["sda"].Owner = "user"
	same, err := os.OpenRoot(target)
	if err != nil {
		t.Fatal(err)
	}
	defer same.Close()
	other, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	for _, c := range []struct {
		what string
		root *os.Root
		any  bool
	}{{"by path", nil, true}, {"the folder plan opened", same, true}, {"another folder than plan opened", other, false}} {
		if c.root == other && runtime.GOOS != "linux" {
			continue // only Linux checks by the folder's descriptor
		}
		for _, r := range rec.Skills {
			r.scan = scanUnknown
		}
		prescan(target, rec, "project", c.root, "")
		for name, r := range rec.Skills {
			want := c.any && name != "sba" && name != "sca" && name != "sda"
			if got := r.scan != scanUnknown; got != want {
				t.Errorf("%s: %s: found unchanged %v (%d), want %v", c.what, name, got, r.scan, want)
			}
		}
	}
}
