package install

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/skillpm/skillpm/internal/filesums"
	"github.com/skillpm/skillpm/lockfile"
)

// richSource writes a skill with nested folders, an executable and a
// symlink, counting its calls.
type richSource struct{ calls atomic.Int32 }

func (r *richSource) Materialize(ctx context.Context, s lockfile.Skill, dir string) error {
	r.calls.Add(1)
	if err := os.MkdirAll(filepath.Join(dir, "scripts", "lib"), 0o755); err != nil {
		return err
	}
	files := []struct {
		rel  string
		mode os.FileMode
		body string
	}{
		{"SKILL.md", 0o644, "---\nname: " + s.Name + "\ndescription: d\n---\n"},
		{"scripts/run.sh", 0o755, "#!/bin/sh\necho " + s.Version + "\n"},
		{"scripts/lib/data.bin", 0o644, string(make([]byte, 200<<10))},
	}
	sums := map[string]filesums.Sum{}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f.rel)), []byte(f.body), f.mode); err != nil {
			return err
		}
		sums[f.rel] = filesums.Sum{SHA256: sha256.Sum256([]byte(f.body)), Size: int64(len(f.body))}
	}
	// Report sums as registry.Unpack does: one right, one of the wrong
	// size (which must be read rather than trusted), one missing.
	delete(sums, "SKILL.md")
	sums["scripts/run.sh"] = filesums.Sum{Size: 1}
	filesums.From(ctx).Set(dir, sums)
	return os.Symlink("scripts/run.sh", filepath.Join(dir, "run"))
}

// Each skill is materialised once however many targets it goes to; the
// other targets get a copy with the same tree, in files of their own, so
// that an edit in one target changes nothing in the other.
func TestSyncStagesEachSkillOnceAndCopiesForOtherTargets(t *testing.T) {
	project := t.TempDir()
	targets := []string{filepath.Join(project, ".claude/skills"), filepath.Join(project, ".agents/skills"), filepath.Join(project, ".other/skills")}
	src := &richSource{}
	l := &lockfile.File{Skills: []lockfile.Skill{
		{Name: "alpha", Version: "1.0.0", Repository: "oci:/r/alpha", Manifest: "sha256:" + hex64('a')},
		{Name: "beta", Version: "2.0.0", Repository: "oci:/r/beta", Manifest: "sha256:" + hex64('b')},
	}}
	opts := Options{Targets: targets, Source: src}
	if _, err := Sync(context.Background(), l, opts); err != nil {
		t.Fatal(err)
	}
	if n := src.calls.Load(); n != 2 {
		t.Fatalf("the source was asked %d times for 2 skills in 3 targets; want once per skill", n)
	}
	for _, name := range []string{"alpha", "beta"} {
		first, err := HashTree(filepath.Join(targets[0], name))
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets[1:] {
			got, err := HashTree(filepath.Join(tg, name))
			if err != nil {
				t.Fatal(err)
			}
			if got.Digest != first.Digest {
				t.Errorf("%s in %s: tree %s, want the first target's %s", name, tg, got.Digest, first.Digest)
			}
			rec, err := ReadRecord(tg)
			if err != nil {
				t.Fatal(err)
			}
			if rec.Skills[name].Tree != got.Digest {
				t.Errorf("%s in %s: recorded tree %s, on disk %s", name, tg, rec.Skills[name].Tree, got.Digest)
			}
			for _, rel := range first.Files {
				a, _ := os.Lstat(filepath.Join(targets[0], name, rel))
				b, _ := os.Lstat(filepath.Join(tg, name, rel))
				if a == nil || b == nil || os.SameFile(a, b) {
					t.Errorf("%s/%s: the targets share one file (or lack it); each needs its own", name, rel)
				}
			}
		}
		// The fingerprints recorded at staging are those of the final
		// places, so the next run reads no file.
		for _, tg := range targets {
			rec, err := ReadRecord(tg)
			if err != nil {
				t.Fatal(err)
			}
			st, err := StatTree(filepath.Join(tg, name))
			if err != nil {
				t.Fatal(err)
			}
			if rec.Skills[name].Stat != st {
				t.Errorf("%s in %s: recorded stat %s, on disk %s", name, tg, rec.Skills[name].Stat, st)
			}
		}
		fi, err := os.Stat(filepath.Join(targets[2], name, "scripts/run.sh"))
		if err != nil || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("%s: the copied script lost its exec bit: %v %v", name, fi, err)
		}
		if tgt, err := os.Readlink(filepath.Join(targets[1], name, "run")); err != nil || tgt != "scripts/run.sh" {
			t.Errorf("%s: copied symlink reads %q, %v", name, tgt, err)
		}
	}

	// An edit in the first target shows nowhere else, and the next run
	// tells the edited copy from the untouched ones.
	edited := filepath.Join(targets[0], "alpha", "scripts/lib/data.bin")
	f, err := os.OpenFile(edited, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("edited"), 100)
	f.Close()
	for _, tg := range targets[1:] {
		b, err := os.ReadFile(filepath.Join(tg, "alpha", "scripts/lib/data.bin"))
		if err != nil || string(b[100:106]) == "edited" {
			t.Fatalf("an edit in %s changed %s", targets[0], tg)
		}
	}
	l.Skills[0].Manifest, l.Skills[0].Version = "sha256:"+hex64('c'), "1.1.0"
	_, err = Sync(context.Background(), l, opts)
	var me *ModifiedError
	if !errors.As(err, &me) || me.Dir != filepath.Join(targets[0], "alpha") {
		t.Fatalf("update over the edited copy: %v; want a ModifiedError for %s", err, filepath.Join(targets[0], "alpha"))
	}
}

func hex64(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}
