package manager

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
)

// A warm install of an unchanged sourced skill reads neither its packed
// copy nor its source: its checked mark covers the pin. With the packed
// copies and the repository gone, a warm install still succeeds; an
// edited pin names another mark, so it is read (and here fails, the
// source being gone).
func TestCheckedMemoSourced(t *testing.T) {
	work, c1, _ := repoT(t)
	m := sourcedProject(t, "skills:\n  alpha:\n    git: file://"+work+"\n    path: skills/alpha\n    version: ~1.0.0\n  dev:\n    local: ./dev\n")
	writeT(t, filepath.Join(m.Project.Dir(), "dev/SKILL.md"), devSkill)
	m.CheckedDir = t.TempDir()
	m.Targets = []string{filepath.Join(m.Project.Dir(), "target")}
	ctx := context.Background()
	if _, err := m.Install(ctx, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	lock, err := m.ReadLock()
	if err != nil || lock.Find("alpha").Source.Commit != c1 {
		t.Fatalf("lock = %+v, %v; want alpha at %s", lock, err, c1)
	}
	if marks, _ := os.ReadDir(m.CheckedDir); len(marks) != 3 {
		t.Fatalf("%d checked marks after a cold install; want 3 (alpha, dev and the whole lock)", len(marks))
	}
	if err := os.RemoveAll(m.Store.Dir); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(work); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Install(ctx, InstallOptions{Frozen: true}); err != nil {
		t.Fatalf("warm install with the packed copies and the repository gone = %v; want nil", err)
	}

	edited := *lock
	edited.Skills = append([]lockfile.Skill(nil), lock.Skills...)
	a := lock.Find("alpha")
	i := 0
	for i = range edited.Skills {
		if edited.Skills[i].Name == "alpha" {
			break
		}
	}
	pin := *a.Source
	pin.Commit = "0123456789abcdef0123456789abcdef01234567"
	edited.Skills[i].Source = &pin
	if _, err := m.SyncLock(ctx, &edited, SyncOptions{}); err == nil {
		t.Fatal("SyncLock of a lock whose pin was edited = nil; want the pin read (and failing)")
	}
}
