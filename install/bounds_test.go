package install

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/lockfile"
)

// victim creates a file outside the project that no run may touch, and
// returns its path.
func victim(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(p, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustExist(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s is gone: %v", p, err)
		}
	}
}

// editRecord rewrites the record of target through fn.
func editRecord(t *testing.T, target string, fn func(*Record)) {
	t.Helper()
	rec, err := ReadRecord(target)
	if err != nil {
		t.Fatal(err)
	}
	fn(rec)
	if err := rec.Write(target); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) syncBounded(l *lockfile.File, force bool, b Bounds) (*Result, error) {
	return Sync(context.Background(), l, Options{Targets: f.targets, Source: f.src, Force: force, Bounds: b})
}

// A committed record listing a path out of the skill folder must not make
// 'remove --force' delete it.
func TestRemoveForceRefusesRecordedTraversal(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0"))
	out := victim(t, filepath.Join(filepath.Dir(f.project), "outside"))
	// An edit makes the forced removal delete file by file.
	os.WriteFile(filepath.Join(f.targets[0], "alpha/SKILL.md"), []byte("edited"), 0o644)
	editRecord(t, f.targets[0], func(r *Record) {
		r.Skills["alpha"].Files = append(r.Skills["alpha"].Files, "../../../../outside/victim.txt")
	})
	before := f.snapshot()
	_, err := f.sync(f.lock(), true)
	var re *RecordError
	if !errors.As(err, &re) || re.Path != filepath.Join(f.targets[0], RecordName) || !strings.Contains(err.Error(), "../../../../outside/victim.txt") {
		t.Fatalf("Sync = %v; want a RecordError naming the record and the path", err)
	}
	mustExist(t, out)
	if got := f.snapshot(); got != before {
		t.Errorf("refused run changed files:\n%s\nwant\n%s", got, before)
	}
}

// A managed skill folder replaced by a link to another folder: neither
// remove nor install goes through it.
func TestSyncRefusesLinkedSkillFolder(t *testing.T) {
	for _, next := range []string{"", "alpha@1.1.0"} {
		t.Run("lock="+next, func(t *testing.T) {
			f := newFixture(t)
			f.mustSync(f.lock("alpha@1.0.0"))
			other := filepath.Join(filepath.Dir(f.project), "other")
			out := victim(t, other)
			// The outside folder holds files of the recorded names.
			os.MkdirAll(filepath.Join(other, "scripts"), 0o755)
			os.WriteFile(filepath.Join(other, "SKILL.md"), []byte("theirs"), 0o644)
			os.WriteFile(filepath.Join(other, "scripts/run.sh"), []byte("theirs"), 0o644)
			dir := filepath.Join(f.targets[0], "alpha")
			os.RemoveAll(dir)
			if err := os.Symlink(other, dir); err != nil {
				t.Fatal(err)
			}
			var specs []string
			if next != "" {
				specs = append(specs, next)
			}
			_, err := f.sync(f.lock(specs...), true)
			var le *LinkError
			if !errors.As(err, &le) || le.Dir != dir || !errors.Is(err, ErrLinkedSkill) {
				t.Fatalf("Sync = %v; want a LinkError for %s", err, dir)
			}
			mustExist(t, out, filepath.Join(other, "SKILL.md"), filepath.Join(other, "scripts/run.sh"))
			if b, _ := os.ReadFile(filepath.Join(other, "SKILL.md")); string(b) != "theirs" {
				t.Errorf("the linked folder was written: %q", b)
			}
			st, err := Status(f.targets, f.lock("alpha@1.0.0"), "", Bounds{Root: f.project})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range st {
				if s.Target == f.targets[0] && s.State != StateModified {
					t.Errorf("Status = %+v; want the linked folder modified", s)
				}
			}
		})
	}
}

// A target folder whose path leads out of the project through a link, at
// the target itself or at a parent (.claude), is refused before anything
// is written, unless the user allows where it leads.
func TestSyncRefusesTargetOutsideProject(t *testing.T) {
	for _, link := range []string{".claude/skills", ".claude"} {
		t.Run(link, func(t *testing.T) {
			f := newFixture(t)
			outside := filepath.Join(filepath.Dir(f.project), "elsewhere")
			out := victim(t, outside)
			os.MkdirAll(filepath.Dir(filepath.Join(f.project, link)), 0o755)
			if err := os.Symlink(outside, filepath.Join(f.project, link)); err != nil {
				t.Fatal(err)
			}
			b := Bounds{Root: f.project}
			_, err := f.syncBounded(f.lock("alpha@1.0.0"), false, b)
			var oe *OutsideError
			if !errors.As(err, &oe) || oe.Dir != f.targets[0] || oe.Root != f.project {
				t.Fatalf("Sync = %v; want an OutsideError for %s", err, f.targets[0])
			}
			if !strings.Contains(err.Error(), "allow_target_outside") {
				t.Errorf("error does not say how to allow it: %v", err)
			}
			ents, _ := os.ReadDir(outside)
			if len(ents) != 1 {
				t.Errorf("the outside folder was written: %v", ents)
			}
			if _, err := os.Stat(f.targets[1]); !os.IsNotExist(err) {
				t.Errorf("another target was written before the refusal: %v", err)
			}
			if _, err := Status(f.targets, nil, "", b); !errors.As(err, &oe) {
				t.Errorf("Status = %v; want an OutsideError", err)
			}
			// Discover lists the folder but reads no record from it.
			for _, e := range Discover(SearchDirs(f.project, "")) {
				if e.Managed {
					t.Errorf("Discover trusted a record outside the project: %+v", e)
				}
			}

			b.Allow = []string{outside}
			if _, err := f.syncBounded(f.lock("alpha@1.0.0"), false, b); err != nil {
				t.Fatalf("Sync with the folder allowed: %v", err)
			}
			mustExist(t, out, filepath.Join(f.targets[0], "alpha/SKILL.md"))
		})
	}
}

// A .claude that links to a folder not there yet is refused, and the
// folder is not created.
func TestSyncRefusesDanglingTargetLink(t *testing.T) {
	f := newFixture(t)
	missing := filepath.Join(filepath.Dir(f.project), "missing")
	if err := os.Symlink(missing, filepath.Join(f.project, ".claude")); err != nil {
		t.Fatal(err)
	}
	_, err := f.syncBounded(f.lock("alpha@1.0.0"), false, Bounds{Root: f.project})
	var oe *OutsideError
	if !errors.As(err, &oe) || !strings.Contains(oe.Resolved, missing) {
		t.Fatalf("Sync = %v; want an OutsideError naming %s", err, missing)
	}
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Errorf("the link's destination was created: %v", err)
	}
}

// The user scope (-g) is bounded by the home folder: a ~/.claude that
// leads elsewhere, or a target written outside it, is refused.
func TestSyncUserScopeOutsideHome(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	outside := filepath.Join(base, "shared")
	out := victim(t, outside)
	os.MkdirAll(home, 0o755)
	if err := os.Symlink(outside, filepath.Join(home, ".claude")); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t)
	f.targets = []string{filepath.Join(home, ".claude/skills")}
	_, err := f.syncBounded(f.lock("alpha@1.0.0"), false, Bounds{Root: home})
	var oe *OutsideError
	if !errors.As(err, &oe) || oe.Root != home {
		t.Fatalf("Sync = %v; want an OutsideError bounded by %s", err, home)
	}
	if _, err := os.Stat(filepath.Join(outside, "skills")); !os.IsNotExist(err) {
		t.Errorf("installed outside the home folder: %v", err)
	}
	f.targets = []string{filepath.Join(home, "../elsewhere/skills")}
	if _, err := f.syncBounded(f.lock("alpha@1.0.0"), false, Bounds{Root: home}); !errors.As(err, &oe) {
		t.Errorf("Sync into %s = %v; want an OutsideError", f.targets[0], err)
	}
	mustExist(t, out)
}

// Links that stay inside the project (.agents/skills -> .claude/skills)
// are fine.
func TestSyncAllowsLinksInsideProject(t *testing.T) {
	f := newFixture(t)
	os.MkdirAll(f.targets[0], 0o755)
	os.MkdirAll(filepath.Dir(f.targets[1]), 0o755)
	if err := os.Symlink(f.targets[0], f.targets[1]); err != nil {
		t.Fatal(err)
	}
	if _, err := f.syncBounded(f.lock("alpha@1.0.0"), false, Bounds{Root: f.project}); err != nil {
		t.Fatal(err)
	}
}

func TestReadRecordRejectsHostileRecords(t *testing.T) {
	good := func() map[string]any {
		return map[string]any{"version": 1, "skills": map[string]any{"alpha": map[string]any{
			"version": "1.0.0", "repository": "r", "manifest": "sha256:" + strings.Repeat("a", 64),
			"tree": "sha256:" + strings.Repeat("b", 64), "stat": "sha256:" + strings.Repeat("c", 64),
			"files": []string{"SKILL.md", "scripts/run.sh"}}}}
	}
	alpha := func(m map[string]any) map[string]any { return m["skills"].(map[string]any)["alpha"].(map[string]any) }
	cases := map[string]func(m map[string]any){
		"ok":             func(m map[string]any) {},
		"dotdot":         func(m map[string]any) { alpha(m)["files"] = []string{"../../x"} },
		"inner dotdot":   func(m map[string]any) { alpha(m)["files"] = []string{"a/../../x"} },
		"absolute":       func(m map[string]any) { alpha(m)["files"] = []string{"/etc/passwd"} },
		"unclean":        func(m map[string]any) { alpha(m)["files"] = []string{"a//b"} },
		"empty path":     func(m map[string]any) { alpha(m)["files"] = []string{""} },
		"backslash":      func(m map[string]any) { alpha(m)["files"] = []string{`..\x`} },
		"dot":            func(m map[string]any) { alpha(m)["files"] = []string{"."} },
		"bad manifest":   func(m map[string]any) { alpha(m)["manifest"] = "sha256:../../x" },
		"short tree":     func(m map[string]any) { alpha(m)["tree"] = "sha256:abc" },
		"control":        func(m map[string]any) { alpha(m)["version"] = "1\x1b[2J" },
		"unknown field":  func(m map[string]any) { alpha(m)["delete"] = []string{"x"} },
		"bad name":       func(m map[string]any) { m["skills"].(map[string]any)["../up"] = alpha(m) },
		"null entry":     func(m map[string]any) { m["skills"].(map[string]any)["beta"] = nil },
		"version 2":      func(m map[string]any) { m["version"] = 2 },
		"pending dotdot": func(m map[string]any) { alpha(m)["pending"] = map[string]any{"files": []string{"../x"}} },
		"pending nested": func(m map[string]any) {
			alpha(m)["pending"] = map[string]any{"pending": map[string]any{}}
		},
	}
	for name, edit := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			m := good()
			edit(m)
			data, _ := json.Marshal(m)
			os.WriteFile(filepath.Join(dir, RecordName), data, 0o644)
			rec, err := ReadRecord(dir)
			if name == "ok" {
				if err != nil || rec.Skills["alpha"] == nil {
					t.Fatalf("ReadRecord(valid) = %v", err)
				}
				return
			}
			if !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), filepath.Join(dir, RecordName)) {
				t.Errorf("ReadRecord = %v; want ErrBadRecord naming the file", err)
			}
			// Through a memo folder too, read twice (no memo, then
			// whatever the first read left).
			memos := t.TempDir()
			for range 2 {
				if _, err := readRecordAt(dir, memos); !errors.Is(err, ErrBadRecord) {
					t.Errorf("readRecordAt = %v; want ErrBadRecord", err)
				}
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		dir := t.TempDir()
		// A sparse file: cheap to make, as long as it is to read.
		p := filepath.Join(dir, RecordName)
		os.WriteFile(p, nil, 0o644)
		if err := os.Truncate(p, MaxRecordSize+1); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRecord(dir); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("ReadRecord = %v; want a size refusal", err)
		}
		// Through a memo folder, which only hashes the bytes, too.
		if _, err := readRecordAt(dir, t.TempDir()); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), "larger than") {
			t.Errorf("readRecordAt = %v; want a size refusal", err)
		}
	})
	t.Run("link", func(t *testing.T) {
		dir := t.TempDir()
		data, _ := json.Marshal(good())
		real := filepath.Join(t.TempDir(), "rec.json")
		os.WriteFile(real, data, 0o644)
		os.Symlink(real, filepath.Join(dir, RecordName))
		if _, err := ReadRecord(dir); !errors.Is(err, ErrBadRecord) {
			t.Errorf("ReadRecord through a link = %v; want ErrBadRecord", err)
		}
	})
}

// Writing a record replaces a link at its name, never writes through it.
func TestRecordWriteReplacesLink(t *testing.T) {
	dir := t.TempDir()
	out := victim(t, t.TempDir())
	os.Symlink(out, filepath.Join(dir, RecordName))
	rec := newRecord()
	rec.Skills["alpha"] = &RecordSkill{Version: "1.0.0"}
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "keep me" {
		t.Errorf("wrote through the link: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(dir, RecordName)); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("record is not a regular file: %v", err)
	}
}

// A .skillpm that links out of the project does not get the lock file.
func TestAcquireRefusesLinkedLockFolder(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, ".skillpm")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if l, err := Acquire(ctx, dir); err == nil {
		l.Unlock()
		t.Fatal("Acquire wrote its lock through a link out of the project")
	} else if !strings.Contains(err.Error(), ".skillpm") {
		t.Errorf("err = %v; want it to name the folder", err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("files created outside: %v", ents)
	}
}

// A file in place of a managed skill folder is not removed either.
func TestRemoveRefusesFileForSkillFolder(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0"))
	dir := filepath.Join(f.targets[0], "alpha")
	os.RemoveAll(dir)
	os.WriteFile(dir, []byte("mine"), 0o644)
	_, err := f.sync(f.lock(), true)
	var le *LinkError
	if !errors.As(err, &le) || !le.File || !strings.Contains(err.Error(), "replaced by a file") {
		t.Fatalf("Sync = %v; want a LinkError for a file", err)
	}
	if b, _ := os.ReadFile(dir); string(b) != "mine" {
		t.Errorf("the file was changed: %q", b)
	}
}

// A target that resolves, through a link the repository carries, to the
// project folder itself or into its .git (where a skill named hooks would
// become .git/hooks) is refused as skills.yaml's spelling of it is, before
// anything is written there.
func TestSyncRefusesTargetIntoGitOrRoot(t *testing.T) {
	for _, c := range []struct{ link, dest string }{{"gh", ".git"}, {"hk", ".git/hooks"}, {"up", "."}, {"gg", ".GIT"}} {
		t.Run(c.link, func(t *testing.T) {
			f := newFixture(t)
			os.MkdirAll(filepath.Join(f.project, ".git/hooks"), 0o755)
			os.MkdirAll(filepath.Join(f.project, ".GIT"), 0o755)
			if err := os.Symlink(c.dest, filepath.Join(f.project, c.link)); err != nil {
				t.Fatal(err)
			}
			before := f.snapshot()
			f.targets = []string{filepath.Join(f.project, c.link)}
			b := Bounds{Root: f.project}
			_, err := f.syncBounded(f.lock("hooks@1.0.0"), false, b)
			var oe *OutsideError
			if !errors.As(err, &oe) || oe.Dir != f.targets[0] || !strings.Contains(err.Error(), "not the project folder itself or inside .git") {
				t.Fatalf("Sync into %s -> %s = %v; want an OutsideError saying why", c.link, c.dest, err)
			}
			if got := f.snapshot(); got != before {
				t.Errorf("refused run wrote:\n%s\nwant\n%s", got, before)
			}
			if _, err := Status(f.targets, nil, "", b); !errors.As(err, &oe) {
				t.Errorf("Status = %v; want an OutsideError", err)
			}
		})
	}
}
