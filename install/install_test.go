package install

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpm/skillpm/lockfile"
)

// dirSource materialises skills from folders keyed by manifest digest.
type dirSource struct {
	byManifest map[string]map[string]string // manifest -> relpath -> content
	calls      atomic.Int32
}

func (d *dirSource) Materialize(_ context.Context, s lockfile.Skill, dir string) error {
	d.calls.Add(1)
	files, ok := d.byManifest[s.Manifest]
	if !ok {
		return errors.New("no such manifest " + s.Manifest)
	}
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func skillFiles(name, version string) map[string]string {
	return map[string]string{
		"SKILL.md":       "---\nname: " + name + "\ndescription: d\nversion: " + version + "\n---\nbody " + version + "\n",
		"scripts/run.sh": "echo " + version + "\n",
	}
}

type fixture struct {
	t       *testing.T
	project string
	targets []string
	src     *dirSource
}

func newFixture(t *testing.T) *fixture {
	p := t.TempDir()
	return &fixture{t: t, project: p,
		targets: []string{filepath.Join(p, ".claude/skills"), filepath.Join(p, ".agents/skills")},
		src:     &dirSource{byManifest: map[string]map[string]string{}}}
}

// lock returns a lock with the given name@version skills, registering
// their contents with the source.
func (f *fixture) lock(specs ...string) *lockfile.File {
	l := &lockfile.File{}
	for _, s := range specs {
		name, v, _ := strings.Cut(s, "@")
		m := fmt.Sprintf("sha256:%x", sha256.Sum256([]byte(s)))
		f.src.byManifest[m] = skillFiles(name, v)
		l.Skills = append(l.Skills, lockfile.Skill{Name: name, Version: v, Repository: "oci:/r/" + name, Manifest: m})
	}
	return l
}

func (f *fixture) sync(l *lockfile.File, force bool) (*Result, error) {
	return Sync(context.Background(), l, Options{Targets: f.targets, Source: f.src, Force: force})
}

func (f *fixture) mustSync(l *lockfile.File) *Result {
	f.t.Helper()
	res, err := f.sync(l, false)
	if err != nil {
		f.t.Fatalf("Sync: %v", err)
	}
	return res
}

func (f *fixture) read(rel string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.project, rel))
	if err != nil {
		f.t.Fatalf("read %s: %v", rel, err)
	}
	return string(b)
}

// snapshot lists every path under the project with its content, to prove
// a failed run wrote nothing.
func (f *fixture) snapshot() string {
	var lines []string
	filepath.Walk(f.project, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(f.project, p)
		if strings.HasPrefix(rel, ".skillpm") {
			return nil
		}
		line := rel
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			line += "=" + string(b)
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func TestSyncInstallUpdateRemove(t *testing.T) {
	f := newFixture(t)
	res := f.mustSync(f.lock("alpha@1.0.0", "beta@2.0.0"))
	if got, want := res.Count(ActionInstall), 4; got != want {
		t.Fatalf("installs = %d; want %d (%+v)", got, want, res.Changes)
	}
	if got := f.read(".agents/skills/alpha/scripts/run.sh"); got != "echo 1.0.0\n" {
		t.Errorf("alpha script = %q; want version 1.0.0", got)
	}

	res = f.mustSync(f.lock("alpha@1.0.0", "beta@2.0.0"))
	if got, want := res.Count(ActionUnchanged), 4; got != want {
		t.Errorf("second run unchanged = %d; want %d (%+v)", got, want, res.Changes)
	}

	res = f.mustSync(f.lock("alpha@1.1.0"))
	if got, want := res.Count(ActionUpdate), 2; got != want {
		t.Errorf("updates = %d; want %d", got, want)
	}
	if got, want := res.Count(ActionRemove), 2; got != want {
		t.Errorf("removes = %d; want %d", got, want)
	}
	if got := f.read(".claude/skills/alpha/SKILL.md"); !strings.Contains(got, "body 1.1.0") {
		t.Errorf("alpha not updated: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.project, ".claude/skills/beta")); !os.IsNotExist(err) {
		t.Errorf("beta still installed: %v", err)
	}
	for _, tg := range f.targets {
		ents, _ := os.ReadDir(tg)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".skillpm-staging") || strings.HasSuffix(e.Name(), ".skillpm-old") {
				t.Errorf("leftover %s in %s", e.Name(), tg)
			}
		}
	}
}

func TestSyncRefusesHandAuthored(t *testing.T) {
	f := newFixture(t)
	mine := filepath.Join(f.project, ".agents/skills/alpha")
	os.MkdirAll(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "SKILL.md"), []byte("---\nname: alpha\ndescription: mine\n---\n"), 0o644)
	before := f.snapshot()

	if _, err := Sync(context.Background(), f.lock("alpha@1.0.0"), Options{Targets: f.targets, Source: f.src, DryRun: true}); !errors.As(err, new(*HandAuthoredError)) {
		t.Errorf("dry run: err = %v; want the HandAuthoredError the real run gives", err)
	}
	if got := f.snapshot(); got != before {
		t.Errorf("dry run changed files:\n%s", got)
	}
	for _, force := range []bool{false, true} {
		_, err := f.sync(f.lock("alpha@1.0.0", "beta@1.0.0"), force)
		var he *HandAuthoredError
		if !errors.As(err, &he) {
			t.Fatalf("force=%v: err = %v; want HandAuthoredError", force, err)
		}
		if !strings.Contains(err.Error(), mine) || !strings.Contains(err.Error(), "oci:/r/alpha") {
			t.Errorf("error %q should name the folder and the locked skill", err)
		}
		if got := f.snapshot(); got != before {
			t.Errorf("force=%v: a refused run changed files:\n%s\nwant\n%s", force, got, before)
		}
	}
}

func TestSyncEditedManagedSkill(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0"))
	edited := filepath.Join(f.project, ".claude/skills/alpha/SKILL.md")
	os.WriteFile(edited, []byte("my edits"), 0o644)

	_, err := f.sync(f.lock("alpha@1.1.0"), false)
	var me *ModifiedError
	if !errors.As(err, &me) {
		t.Fatalf("update over edits: err = %v; want ModifiedError", err)
	}
	if got := f.read(".claude/skills/alpha/SKILL.md"); got != "my edits" {
		t.Errorf("edits clobbered: %q", got)
	}
	// The same version, edited, is refused too.
	if _, err := f.sync(f.lock("alpha@1.0.0"), false); !errors.As(err, &me) {
		t.Fatalf("reinstall over edits: err = %v; want ModifiedError", err)
	}
	if _, err := f.sync(f.lock("alpha@1.1.0"), true); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if got := f.read(".claude/skills/alpha/SKILL.md"); !strings.Contains(got, "1.1.0") {
		t.Errorf("--force did not replace: %q", got)
	}
}

func TestSyncRemoveKeepsUserFilesWithForce(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0"))
	notes := filepath.Join(f.project, ".claude/skills/alpha/notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	if _, err := f.sync(f.lock(), false); err == nil {
		t.Fatal("removing an edited skill without --force succeeded")
	}
	if _, err := f.sync(f.lock(), true); err != nil {
		t.Fatalf("remove --force: %v", err)
	}
	if _, err := os.Stat(notes); err != nil {
		t.Errorf("user file removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.project, ".claude/skills/alpha/SKILL.md")); !os.IsNotExist(err) {
		t.Errorf("managed file kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.project, ".agents/skills/alpha")); !os.IsNotExist(err) {
		t.Errorf("unedited copy kept: %v", err)
	}
}

func TestSyncRepairsAfterLostRecord(t *testing.T) {
	f := newFixture(t)
	l := f.lock("alpha@1.0.0")
	f.mustSync(l)
	// A crash after the swap but before the record was saved, and a
	// leftover staging folder.
	os.Remove(filepath.Join(f.targets[1], RecordName))
	os.MkdirAll(filepath.Join(f.targets[0], stagingPrefix+"123/alpha"), 0o755)
	// A corrupt record stops the run with nothing changed; deleting it,
	// as the message says, lets the run rebuild it.
	rec := filepath.Join(f.targets[0], RecordName)
	os.WriteFile(rec, []byte("{corrupt"), 0o644)
	before := f.snapshot()
	if _, err := f.sync(l, false); !errors.Is(err, ErrBadRecord) || !strings.Contains(err.Error(), rec) {
		t.Fatalf("Sync with a corrupt record: %v; want ErrBadRecord naming %s", err, rec)
	}
	if got := f.snapshot(); got != before {
		t.Errorf("failed run changed files:\n%s\nwant\n%s", got, before)
	}
	os.Remove(rec)

	res := f.mustSync(l)
	if got, want := res.Count(ActionRepair), 2; got != want {
		t.Fatalf("repairs = %d; want %d (%+v)", got, want, res.Changes)
	}
	if _, err := os.Stat(filepath.Join(f.targets[0], stagingPrefix+"123")); !os.IsNotExist(err) {
		t.Errorf("leftover staging not cleaned: %v", err)
	}
	res = f.mustSync(l)
	if got, want := res.Count(ActionUnchanged), 2; got != want {
		t.Errorf("after repair unchanged = %d; want %d", got, want)
	}
}

func TestSyncFailedSourceWritesNothing(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0"))
	before := f.snapshot()
	l := f.lock("alpha@1.1.0", "beta@1.0.0")
	delete(f.src.byManifest, l.Skills[1].Manifest) // beta cannot be fetched
	if _, err := f.sync(l, false); err == nil {
		t.Fatal("Sync with an unfetchable skill succeeded")
	}
	if got := f.snapshot(); got != before {
		t.Errorf("failed run changed files:\n%s\nwant\n%s", got, before)
	}
}

func TestDryRunChangesNothing(t *testing.T) {
	f := newFixture(t)
	before := f.snapshot()
	res, err := Sync(context.Background(), f.lock("alpha@1.0.0"), Options{Targets: f.targets, Source: f.src, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Count(ActionInstall), 2; got != want {
		t.Errorf("planned installs = %d; want %d", got, want)
	}
	if got := f.snapshot(); got != before || f.src.calls.Load() != 0 {
		t.Errorf("dry run wrote files or fetched (%d calls)", f.src.calls.Load())
	}
}

func TestDiscoverPrecedence(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0"))
	home := t.TempDir()
	for _, d := range []string{filepath.Join(home, ".claude/skills/beta"), filepath.Join(f.project, "skills/beta"), filepath.Join(f.project, "skills/.hidden"), filepath.Join(f.project, "skills/nofile")} {
		os.MkdirAll(d, 0o755)
		if !strings.HasSuffix(d, "nofile") {
			os.WriteFile(filepath.Join(d, "SKILL.md"), []byte("x"), 0o644)
		}
	}
	entries := Discover(SearchDirs(f.project, home))
	var got []string
	for _, e := range entries {
		s := e.Root.Rel + "/" + e.Name
		if e.Effective {
			s += " effective"
		}
		if e.Managed {
			s += " managed@" + e.Version
		}
		got = append(got, s)
	}
	want := []string{
		"~/.claude/skills/beta",
		"skills/beta effective",
		".claude/skills/alpha managed@1.0.0",
		".agents/skills/alpha effective managed@1.0.0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Discover =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	eff := Effective(entries)
	if len(eff) != 2 || len(eff[0].Shadows) != 1 || eff[1].Name != "beta" {
		t.Errorf("Effective = %+v", eff)
	}
}

func TestLockSerialises(t *testing.T) {
	dir := t.TempDir()
	l1, err := Acquire(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := Acquire(ctx, dir); err == nil {
		t.Fatal("second Acquire succeeded while the first holds the lock")
	}
	l1.Unlock()
	l2, err := Acquire(context.Background(), dir)
	if err != nil {
		t.Fatalf("Acquire after Unlock: %v", err)
	}
	l2.Unlock()
}

func TestStatus(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0", "beta@1.0.0"))
	os.WriteFile(filepath.Join(f.targets[0], "alpha/SKILL.md"), []byte("edited"), 0o644)
	os.RemoveAll(filepath.Join(f.targets[1], "beta"))
	st, err := Status(f.targets, f.lock("alpha@1.0.0", "beta@1.1.0", "gamma@1.0.0"), "", Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range st {
		got = append(got, filepath.Base(filepath.Dir(s.Target))+"/"+s.Name+"="+string(s.State))
	}
	want := ".agents/alpha=ok .agents/beta=missing .agents/gamma=not-installed .claude/alpha=modified .claude/beta=outdated .claude/gamma=not-installed"
	if strings.Join(got, " ") != want {
		t.Errorf("Status = %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestSyncRefusesNamesThatLeaveTheTarget(t *testing.T) {
	f := newFixture(t)
	l := f.lock("alpha@1.0.0")
	l.Skills[0].Name = "../../outside"
	f.src.byManifest[l.Skills[0].Manifest] = skillFiles("outside", "1.0.0")
	if _, err := f.sync(l, false); err == nil || !strings.Contains(err.Error(), "not a valid skill name") {
		t.Fatalf("err = %v; want a refusal naming the invalid name", err)
	}
	if _, err := os.Stat(filepath.Join(f.project, "outside")); !os.IsNotExist(err) {
		t.Errorf("a folder was written outside the target: %v", err)
	}
	// A record naming such a folder is refused, never used.
	os.MkdirAll(f.targets[0], 0o755)
	os.WriteFile(filepath.Join(f.targets[0], RecordName), []byte(`{"version":1,"skills":{"../../x":{"version":"1"}}}`), 0o644)
	if rec, err := ReadRecord(f.targets[0]); !errors.Is(err, ErrBadRecord) {
		t.Errorf("ReadRecord = %+v, %v; want ErrBadRecord for a name that leaves the target", rec, err)
	}
}

func TestSyncTargetsThatAreOneFolder(t *testing.T) {
	f := newFixture(t)
	os.MkdirAll(f.targets[0], 0o755)
	os.MkdirAll(filepath.Dir(f.targets[1]), 0o755)
	if err := os.Symlink(f.targets[0], f.targets[1]); err != nil {
		t.Fatal(err)
	}
	res := f.mustSync(f.lock("alpha@1.0.0", "beta@1.0.0"))
	if got, want := res.Count(ActionInstall), 2; got != want {
		t.Errorf("installs = %d; want %d (one folder under two names)", got, want)
	}
	if got := f.read(".agents/skills/beta/SKILL.md"); !strings.Contains(got, "beta") {
		t.Errorf("beta missing through the symlinked target: %q", got)
	}
	if n := len(Discover(SearchDirs(f.project, ""))); n != 2 {
		t.Errorf("Discover lists %d entries; want 2 (the folder once)", n)
	}
}

// A run that crashed after swapping a skill in, before saving the record:
// the journal makes the next run see the folder as unedited, whichever
// lock it brings.
func TestSyncRepairsAfterCrashedUpdate(t *testing.T) {
	for _, next := range []string{"alpha@1.0.0", "alpha@1.1.0"} {
		t.Run(next, func(t *testing.T) {
			f := newFixture(t)
			opts := Options{Targets: f.targets, Source: f.src, RecordMemo: t.TempDir()}
			old := f.lock("alpha@1.0.0")
			if _, err := Sync(context.Background(), old, opts); err != nil {
				t.Fatal(err)
			}
			// Crash: stage 1.1.0 (and mark its tree, as prepare does),
			// journal it, swap it in, die.
			newer := f.lock("alpha@1.1.0")
			staged := filepath.Join(t.TempDir(), "alpha")
			f.src.Materialize(context.Background(), newer.Skills[0], staged)
			tree, err := HashTree(staged)
			if err != nil {
				t.Fatal(err)
			}
			markTree(opts.RecordMemo, newer.Skills[0], tree.Digest)
			for _, tg := range f.targets {
				rec, _ := ReadRecord(tg)
				rec.Skills["alpha"].Pending = recordFor(newer.Skills[0], tree, "", "")
				if err := rec.Write(tg); err != nil {
					t.Fatal(err)
				}
			}
			os.RemoveAll(filepath.Join(f.targets[0], "alpha"))
			os.Rename(staged, filepath.Join(f.targets[0], "alpha"))

			res, err := Sync(context.Background(), f.lock(next), opts)
			if err != nil {
				t.Fatalf("next run after the crash: %v", err)
			}
			want := map[string]Action{"alpha@1.0.0": ActionUpdate, "alpha@1.1.0": ActionUnchanged}[next]
			if got := res.Changes[0].Action; got != want {
				t.Errorf(".claude: %s; want %s (%+v)", got, want, res.Changes)
			}
			st, err := Status(f.targets, f.lock(next), "", Bounds{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range st {
				if s.State != StateOK {
					t.Errorf("after repair: %s/%s is %s", s.Target, s.Name, s.State)
				}
			}
		})
	}
}

func TestUpdateForceKeepsFilesTheUserAdded(t *testing.T) {
	f := newFixture(t)
	f.mustSync(f.lock("alpha@1.0.0"))
	notes := filepath.Join(f.targets[0], "alpha", "NOTES.md")
	os.WriteFile(notes, []byte("mine"), 0o644)
	if _, err := f.sync(f.lock("alpha@1.1.0"), false); !errors.As(err, new(*ModifiedError)) {
		t.Fatalf("update over an added file: err = %v; want ModifiedError", err)
	}
	if _, err := f.sync(f.lock("alpha@1.1.0"), true); err != nil {
		t.Fatalf("update --force: %v", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Errorf("the user's NOTES.md after update --force: %q, %v", b, err)
	}
	if got := f.read(".claude/skills/alpha/SKILL.md"); !strings.Contains(got, "1.1.0") {
		t.Errorf("not updated: %q", got)
	}
}

func TestSyncLeavesOtherOwnersSkillsAlone(t *testing.T) {
	f := newFixture(t)
	shared := f.targets[:1]
	if _, err := Sync(context.Background(), f.lock("alpha@1.0.0"), Options{Targets: shared, Source: f.src, Owner: "user"}); err != nil {
		t.Fatal(err)
	}
	// A project sharing the folder installs beta: alpha stays.
	res, err := Sync(context.Background(), f.lock("beta@1.0.0"), Options{Targets: shared, Source: f.src, Owner: "project"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count(ActionRemove) != 0 {
		t.Errorf("removed another project's skill: %+v", res.Changes)
	}
	if _, err := os.Stat(filepath.Join(shared[0], "alpha", "SKILL.md")); err != nil {
		t.Errorf("alpha gone: %v", err)
	}
	// It cannot take over a skill the other owns.
	if _, err := Sync(context.Background(), f.lock("alpha@1.1.0", "beta@1.0.0"), Options{Targets: shared, Source: f.src, Owner: "project"}); !errors.As(err, new(*OwnedError)) {
		t.Errorf("err = %v; want OwnedError", err)
	}
	st, _ := Status(shared, f.lock("beta@1.0.0"), "project", Bounds{})
	if len(st) != 1 || st[0].Name != "beta" {
		t.Errorf("Status shows another owner's skills: %+v", st)
	}
}

// A skill folder that appears after planning (the user, or an agent,
// makes it while skills download) is not the absent folder the plan
// saw: it is hand-authored, and never swapped out and deleted.
func TestSyncNeverReplacesFolderMadeDuringRun(t *testing.T) {
	f := newFixture(t)
	f.targets = f.targets[:1]
	mine := filepath.Join(f.targets[0], "beta", "NOTES.md")
	opts := Options{Targets: f.targets, Source: f.src, AfterSwap: func(n int) {
		if n == 1 { // alpha is in; beta is next
			os.MkdirAll(filepath.Dir(mine), 0o755)
			os.WriteFile(mine, []byte("mine"), 0o644)
		}
	}}
	_, err := Sync(context.Background(), f.lock("alpha@1.0.0", "beta@1.0.0"), opts)
	if !errors.As(err, new(*HandAuthoredError)) {
		t.Fatalf("Sync over a folder made during the run: %v; want a HandAuthoredError", err)
	}
	if got := f.read(".claude/skills/beta/NOTES.md"); got != "mine" {
		t.Errorf("the folder made during the run lost its file: %q", got)
	}
	// The next run finds it in the way, as any hand-authored folder.
	opts.AfterSwap = nil
	if _, err := Sync(context.Background(), f.lock("alpha@1.0.0", "beta@1.0.0"), opts); !errors.As(err, new(*HandAuthoredError)) {
		t.Fatalf("next run: %v; want a HandAuthoredError", err)
	}
	if got := f.read(".claude/skills/beta/NOTES.md"); got != "mine" {
		t.Errorf("next run: %q", got)
	}
}

// A managed skill edited after planning (while others download or swap)
// is not the unedited folder the plan saw: the update refuses it rather
// than replace the edit.
func TestSyncUpdateSeesEditDuringRun(t *testing.T) {
	f := newFixture(t)
	f.targets = f.targets[:1]
	f.mustSync(f.lock("alpha@1.0.0", "beta@1.0.0"))
	edited := filepath.Join(f.targets[0], "beta", "SKILL.md")
	opts := Options{Targets: f.targets, Source: f.src, AfterSwap: func(n int) {
		if n == 1 { // alpha is in; beta is next
			os.WriteFile(edited, []byte("my edits"), 0o644)
		}
	}}
	_, err := Sync(context.Background(), f.lock("alpha@1.1.0", "beta@1.1.0"), opts)
	if !errors.As(err, new(*ModifiedError)) {
		t.Fatalf("update over an edit made during the run: %v; want a ModifiedError", err)
	}
	if got := f.read(".claude/skills/beta/SKILL.md"); got != "my edits" {
		t.Errorf("the edit made during the run was replaced: %q", got)
	}
}

// So is a managed skill to be removed: an edit made after planning keeps
// it.
func TestSyncRemoveSeesEditDuringRun(t *testing.T) {
	f := newFixture(t)
	f.targets = f.targets[:1]
	f.mustSync(f.lock("alpha@1.0.0", "beta@1.0.0"))
	edited := filepath.Join(f.targets[0], "beta", "SKILL.md")
	opts := Options{Targets: f.targets, Source: f.src, AfterSwap: func(n int) {
		if n == 1 { // alpha is updated; beta is removed next
			os.WriteFile(edited, []byte("my edits"), 0o644)
		}
	}}
	_, err := Sync(context.Background(), f.lock("alpha@1.1.0"), opts)
	if !errors.As(err, new(*ModifiedError)) {
		t.Fatalf("remove over an edit made during the run: %v; want a ModifiedError", err)
	}
	if got := f.read(".claude/skills/beta/SKILL.md"); got != "my edits" {
		t.Errorf("the edit made during the run was removed: %q", got)
	}
}
