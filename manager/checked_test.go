package manager

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
)

// A warm install does not read again the manifests of entries it has
// checked, and an edited lock is still caught however many entries were
// remembered: the edited entry, or the entry whose dependency's version
// changed, names a mark that does not exist.
func TestCheckedMemoWarmAndEdited(t *testing.T) {
	ctx := context.Background()
	m, reg := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
	m.CheckedDir = t.TempDir()
	lock, _, err := m.Resolve(ctx, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before := reg.describes.Load()
	if _, err := m.SyncLock(ctx, lock, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := reg.describes.Load() - before; got != int32(len(lock.Skills)) {
		t.Fatalf("cold install read %d manifests; want %d", got, len(lock.Skills))
	}
	marks, err := os.ReadDir(m.CheckedDir)
	if err != nil || len(marks) != len(lock.Skills)+1 {
		t.Fatalf("marks after a checked install: %d, %v; want %d (one per entry, one for the lock)", len(marks), err, len(lock.Skills)+1)
	}
	before = reg.describes.Load()
	if _, err := m.SyncLock(ctx, lock, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := reg.describes.Load() - before; got != 0 {
		t.Errorf("warm install read %d manifests; want 0", got)
	}
	// The lock's mark alone stands for its entries.
	for _, mk := range marks {
		if !strings.HasPrefix(mk.Name(), "lock-") {
			os.Remove(filepath.Join(m.CheckedDir, mk.Name()))
		}
	}
	before = reg.describes.Load()
	if _, err := m.SyncLock(ctx, lock, SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := reg.describes.Load() - before; got != 0 {
		t.Errorf("warm install with the lock's mark only read %d manifests; want 0", got)
	}

	for _, tc := range []struct {
		name string
		edit func(l *lockfile.File)
	}{
		{"dependency version outside its dependent's depends_on", func(l *lockfile.File) { *l.Find("slug") = entry("slug", "1.0.0") }},
		{"digest changed, version kept", func(l *lockfile.File) {
			e := l.Find("notes")
			e.Manifest, e.Content = fakeDigest("notes-1.0.0"), fakeDigest("notes-1.0.0-layer")
		}},
		{"content digest changed", func(l *lockfile.File) { l.Find("stats").Content = fakeDigest("other") }},
		{"dependency edge dropped", func(l *lockfile.File) {
			l.Find("notes").Dependencies = []string{"slug"}
			l.Find("slug").Dependencies = []string{"stats"}
		}},
		{"extra entry smuggled in as a dependency", func(l *lockfile.File) {
			l.Skills = append(l.Skills, entry("legacy", "1.0.0"))
			l.Find("notes").Dependencies = append(l.Find("notes").Dependencies, "legacy")
			l.Normalize()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited, _, err := m.Resolve(ctx, ResolveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(edited)
			if _, err := m.SyncLock(ctx, edited, SyncOptions{}); !errors.Is(err, ErrLockMismatch) {
				t.Errorf("install of the edited lock with every honest entry remembered: err = %v; want ErrLockMismatch", err)
			}
		})
	}
	// A refused lock leaves no mark: the honest entries' marks only.
	if marks, _ := os.ReadDir(m.CheckedDir); len(marks) != 1 {
		t.Errorf("marks after refused installs: %d; want 1, the honest lock's", len(marks))
	}
}

// checkedKey covers every field CheckPinned compares.
func TestCheckedKeyCoversEveryInput(t *testing.T) {
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
	lock := &lockfile.File{Skills: []lockfile.Skill{entry("notes", "1.1.0", "slug"), entry("slug", "1.1.0")}}
	base := checkedKey(m.Project, lock, lock.Skills[0], "r")
	for name, change := range map[string]func(l *lockfile.File, e *lockfile.Skill, repo *string){
		"repository":         func(_ *lockfile.File, _ *lockfile.Skill, repo *string) { *repo = "r2" },
		"name":               func(_ *lockfile.File, e *lockfile.Skill, _ *string) { e.Name = "notes2" },
		"version":            func(_ *lockfile.File, e *lockfile.Skill, _ *string) { e.Version = "1.1.1" },
		"manifest":           func(_ *lockfile.File, e *lockfile.Skill, _ *string) { e.Manifest = fakeDigest("x") },
		"content":            func(_ *lockfile.File, e *lockfile.Skill, _ *string) { e.Content = fakeDigest("x") },
		"dependencies":       func(_ *lockfile.File, e *lockfile.Skill, _ *string) { e.Dependencies = nil },
		"dependency version": func(l *lockfile.File, _ *lockfile.Skill, _ *string) { l.Skills[1].Version = "1.0.0" },
		"dependency missing": func(l *lockfile.File, _ *lockfile.Skill, _ *string) { l.Skills = l.Skills[:1] },
		"prereleases":        func(_ *lockfile.File, _ *lockfile.Skill, _ *string) { m.Project.Prereleases = true },
	} {
		l := &lockfile.File{Skills: []lockfile.Skill{entry("notes", "1.1.0", "slug"), entry("slug", "1.1.0")}}
		e, repo := l.Skills[0], "r"
		m.Project.Prereleases = false
		change(l, &e, &repo)
		if checkedKey(m.Project, l, e, repo) == base {
			t.Errorf("changing the %s keeps the mark's name", name)
		}
	}
}
