package manager

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
)

// TestCheckLockTagVersion: a lock edited to label an older tag's commit
// as the newer version (a downgrade to known-vulnerable files, with a
// manifest packed to match) is refused: a tag's version is the version.
func TestCheckLockTagVersion(t *testing.T) {
	work, c1, _ := repoT(t)
	m := sourcedProject(t, "skills:\n  alpha:\n    git: file://"+work+"\n    path: skills/alpha\n    version: ^1.0.0\n  dev:\n    local: ./dev\n")
	writeT(t, m.Project.Dir()+"/dev/SKILL.md", devSkill)
	ctx := context.Background()
	lock, _, err := m.Resolve(ctx, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckLock(ctx, lock); err != nil {
		t.Fatalf("CheckLock of a fresh lock: %v", err)
	}
	a := lock.Find("alpha")
	if a.Version != "1.1.0" {
		t.Fatalf("alpha locked at %s; want 1.1.0", a.Version)
	}
	// The attacker packs the old commit as 1.1.0, as skillpm would.
	e, _ := m.Entry("alpha")
	old := lockfile.Source{Commit: c1, Ref: "refs/tags/alpha/v1.0.0"}
	pk, err := m.Store.Pack(ctx, m.Sources[e.Kind], e, source.Candidate{Version: semver.MustParse("1.1.0"), Pin: old})
	if err != nil {
		t.Fatal(err)
	}
	bad := *lock
	bad.Skills = append([]lockfile.Skill(nil), lock.Skills...)
	for i := range bad.Skills {
		if bad.Skills[i].Name == "alpha" {
			bad.Skills[i].Source, bad.Skills[i].Manifest, bad.Skills[i].Content = &old, pk.Manifest, pk.Content
		}
	}
	m.packed.Clear()
	var le *LockError
	if err := m.CheckLock(ctx, &bad); !errors.As(err, &le) || !strings.Contains(err.Error(), "alpha/v1.0.0") {
		t.Fatalf("CheckLock(1.1.0 pinned to the tag alpha/v1.0.0) = %v; want a LockError naming the tag", err)
	}
}

// TestCheckLockSmuggledSource: a lock that adds a sourced entry
// skills.yaml does not name, even listed as another entry's dependency
// and pointing at a real repository, is refused.
func TestCheckLockSmuggledSource(t *testing.T) {
	work, c1, _ := repoT(t)
	m := sourcedProject(t, "registry: oci:./registry\nskills:\n  dev:\n    local: ./dev\n")
	writeT(t, m.Project.Dir()+"/dev/SKILL.md", devSkill)
	ctx := context.Background()
	lock, _, err := m.Resolve(ctx, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bad := *lock
	bad.Skills = append([]lockfile.Skill(nil), lock.Skills...)
	bad.Skills[0].Dependencies = []string{"alpha"}
	bad.Skills = append(bad.Skills, lockfile.Skill{Name: "alpha", Version: "1.0.0", Repository: "git+file://" + work + "//skills/alpha",
		Source: &lockfile.Source{Commit: c1, Ref: "refs/tags/alpha/v1.0.0"}, Manifest: "sha256:" + strings.Repeat("a", 64)})
	bad.Normalize()
	var le *LockError
	if err := m.CheckLock(ctx, &bad); !errors.As(err, &le) || !strings.Contains(err.Error(), "alpha") {
		t.Fatalf("CheckLock(a smuggled git entry) = %v; want a LockError naming alpha", err)
	}
}
