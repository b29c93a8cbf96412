package manager

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
)

// entry is the honest lock entry of name@version in the fake registry.
func entry(name, version string, deps ...string) lockfile.Skill {
	return lockfile.Skill{
		Name: name, Version: version, Repository: "oci:./registry/" + name,
		Manifest: fakeDigest(name + "-" + version), Content: fakeDigest(name + "-" + version + "-layer"),
		Dependencies: deps,
	}
}

// TestCheckLockInjections edits an honest lock the ways an attacker who
// can change only skills.lock would, and expects each edit to be found,
// naming the entry. Edits marked deep are invisible in the two files
// alone and need the pinned manifests.
func TestCheckLockInjections(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(l *lockfile.File)
		// skill and reason are what the error must say.
		skill, reason string
		deep          bool
		want          error
	}{
		{
			name:  "repository swapped for another registry",
			edit:  func(l *lockfile.File) { l.Find("notes").Repository = "evil.example/other/notes" },
			skill: "notes", reason: "repository is evil.example/other/notes, but skills.yaml resolves notes to oci:./registry/notes",
		},
		{
			name:  "repository of a dependency swapped",
			edit:  func(l *lockfile.File) { l.Find("slug").Repository = "oci:./elsewhere/slug" },
			skill: "slug", reason: "skills.yaml resolves slug to oci:./registry/slug",
		},
		{
			name: "extra entry nothing asks for",
			edit: func(l *lockfile.File) {
				l.Skills = append(l.Skills, entry("legacy", "1.0.0"))
				l.Normalize()
			},
			skill: "legacy", reason: "nothing in skills.yaml needs it",
		},
		{
			name: "extra entry marked requested",
			edit: func(l *lockfile.File) {
				e := entry("legacy", "1.0.0")
				e.Requested = true
				l.Skills = append(l.Skills, e)
				l.Normalize()
			},
			skill: "legacy", reason: "marked requested, but skills.yaml does not ask for it",
		},
		{
			name: "extra entry smuggled in as a dependency",
			edit: func(l *lockfile.File) {
				l.Skills = append(l.Skills, entry("legacy", "1.0.0"))
				l.Find("notes").Dependencies = append(l.Find("notes").Dependencies, "legacy")
				l.Normalize()
			},
			skill: "notes", reason: "the lock lists legacy as its dependency, but its manifest", deep: true,
		},
		{
			name: "dependency edge dropped",
			edit: func(l *lockfile.File) {
				l.Find("notes").Dependencies = []string{"slug"}
				l.Find("slug").Dependencies = []string{"stats"}
			},
			skill: "notes", reason: "its manifest depends on stats, but the lock does not list it", deep: true,
		},
		{
			name: "requested version outside skills.yaml's constraint",
			edit: func(l *lockfile.File) {
				*l.Find("notes") = entry("notes", "2.0.0-beta.1")
				l.Find("notes").Requested = true
				l.Find("notes").Dependencies = []string{"slug", "stats"}
			},
			skill: "notes", reason: `version 2.0.0-beta.1 does not satisfy skills.yaml's constraint "^1.0"`,
		},
		{
			name:  "dependency version outside its dependent's depends_on",
			edit:  func(l *lockfile.File) { *l.Find("slug") = entry("slug", "1.0.0") },
			skill: "slug", reason: `version 1.0.0 does not satisfy notes 1.1.0's depends_on "slug@^1.1"`, deep: true,
		},
		{
			name: "digest changed, version kept",
			edit: func(l *lockfile.File) {
				e := l.Find("notes")
				e.Manifest, e.Content = fakeDigest("notes-1.0.0"), fakeDigest("notes-1.0.0-layer")
			},
			skill: "notes", reason: "is version 1.0.0, not 1.1.0", deep: true,
		},
		{
			name:  "content digest changed",
			edit:  func(l *lockfile.File) { l.Find("stats").Content = fakeDigest("other") },
			skill: "stats", reason: "has the content layer", deep: true,
		},
		{
			name:  "requested flag dropped",
			edit:  func(l *lockfile.File) { l.Find("notes").Requested = false },
			skill: "notes", reason: "does not mark it requested",
		},
		{
			name: "wanted skill missing",
			edit: func(l *lockfile.File) {
				l.Skills = slices.DeleteFunc(l.Skills, func(s lockfile.Skill) bool { return s.Name == "notes" })
			},
			skill: "notes", reason: "the lock has no entry",
		},
		{
			name: "stale inputs",
			edit: func(l *lockfile.File) { l.Inputs = fakeDigest("other inputs") },
			want: ErrStaleLock,
		},
		{
			name: "duplicate entry",
			edit: func(l *lockfile.File) { l.Skills = append(l.Skills, l.Skills[len(l.Skills)-1]) },
			want: lockfile.ErrInvalid,
		},
		{
			name: "malformed digest",
			edit: func(l *lockfile.File) { l.Find("slug").Manifest = "sha256:../../x" },
			want: lockfile.ErrInvalid,
		},
		{
			name: "invalid name",
			edit: func(l *lockfile.File) { l.Find("stats").Name = "../stats" },
			want: lockfile.ErrInvalid,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
			ctx := context.Background()
			lock, _, err := m.Resolve(ctx, ResolveOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.CheckLock(ctx, lock); err != nil {
				t.Fatalf("honest lock: %v", err)
			}
			tc.edit(lock)
			err = m.CheckLock(ctx, lock)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("CheckLock: err = %v; want %v", err, tc.want)
				}
				return
			}
			var le *LockError
			if !errors.As(err, &le) || !errors.Is(err, ErrLockMismatch) {
				t.Fatalf("CheckLock: err = %v; want a *LockError", err)
			}
			if !slices.ContainsFunc(le.Problems, func(p LockProblem) bool {
				return p.Skill == tc.skill && strings.Contains(p.Reason, tc.reason)
			}) {
				t.Errorf("CheckLock: problems = %+v; want %s: %q", le.Problems, tc.skill, tc.reason)
			}
			if !strings.Contains(err.Error(), "skillpm install") {
				t.Errorf("error %q does not say how to re-resolve", err)
			}
			if files := m.CheckLockFiles(lock); tc.deep != (files == nil) {
				t.Errorf("CheckLockFiles: err = %v; want it to find this edit: %v", files, !tc.deep)
			}
			// Install refuses before any target is touched, and before
			// any trust check sees the lock's claims.
			m.Trust = fakeTrust{}
			if _, err := m.SyncLock(ctx, lock, SyncOptions{}); !errors.Is(err, ErrLockMismatch) {
				t.Errorf("Install: err = %v; want ErrLockMismatch", err)
			}
			for _, dir := range m.TargetDirs() {
				if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s exists after a refused install", dir)
				}
			}
		})
	}
}

// A skill wanted from its own registry resolves there, and only there;
// dependencies resolve from the project default.
func TestCheckLockPerSkillRegistry(t *testing.T) {
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes:\n    version: ^1.0\n    registry: oci:./other\n")
	ctx := context.Background()
	lock, _, err := m.Resolve(ctx, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := lock.Find("notes").Repository; got != "oci:./other/notes" {
		t.Fatalf("notes repository = %s", got)
	}
	if err := m.CheckLock(ctx, lock); err != nil {
		t.Fatalf("honest lock: %v", err)
	}
	lock.Find("notes").Repository = "oci:./registry/notes"
	if err := m.CheckLockFiles(lock); !errors.Is(err, ErrLockMismatch) {
		t.Errorf("notes moved to the default registry: err = %v; want ErrLockMismatch", err)
	}
}
