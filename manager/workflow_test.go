package manager

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
)

func TestInstallWorkflow(t *testing.T) {
	ctx := context.Background()
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")

	// Frozen with no lock: ErrStaleLock, nothing written.
	if _, err := m.Install(ctx, InstallOptions{Frozen: true}); !errors.Is(err, ErrStaleLock) {
		t.Fatalf("frozen without a lock: err = %v; want ErrStaleLock", err)
	}
	if _, err := os.Stat(m.LockPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("frozen wrote %s", m.LockPath())
	}
	// A dry run resolves and plans, and writes nothing.
	res, err := m.Install(ctx, InstallOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.LockWritten || len(res.Skills()) != 3 {
		t.Errorf("dry run: LockWritten %v, skills %v; want false, 3", res.LockWritten, res.Skills())
	}
	if _, err := os.Stat(m.LockPath()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("dry run wrote %s", m.LockPath())
	}
	// The zero options resolve, install and write the lock.
	res, err = m.Install(ctx, InstallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.LockWritten || len(res.Folders) != 2 {
		t.Errorf("install: LockWritten %v, folders %d; want true, 2", res.LockWritten, len(res.Folders))
	}
	for _, s := range res.Skills() {
		if s.Action != install.ActionInstall || s.Folders != 2 {
			t.Errorf("install: %+v; want install in 2 folders", s)
		}
	}
	// Nothing changed: the lock is not rewritten.
	before, _ := os.Stat(m.LockPath())
	res, err = m.Install(ctx, InstallOptions{Frozen: true})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(m.LockPath())
	if res.LockWritten || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("frozen rewrote the lock")
	}
	for _, s := range res.Skills() {
		if s.Action != install.ActionUnchanged || s.Folders != 0 {
			t.Errorf("second install: %+v; want unchanged", s)
		}
	}
	// skills.yaml changed: frozen refuses the stale lock.
	os.WriteFile(m.Project.Path(), []byte("registry: oci:./registry\nskills:\n  stats: '*'\n"), 0o644)
	if _, err := m.Install(ctx, InstallOptions{Frozen: true}); !errors.Is(err, ErrStaleLock) {
		t.Fatalf("frozen with a stale lock: err = %v; want ErrStaleLock", err)
	}
	if _, err := m.Install(ctx, InstallOptions{RequireLock: true}); !errors.Is(err, ErrStaleLock) {
		t.Fatalf("RequireLock with a stale lock: err = %v; want ErrStaleLock", err)
	}
}

func TestAddRemoveUpdateWorkflows(t *testing.T) {
	ctx := context.Background()
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
	res, err := m.Add(ctx, AddOptions{Skills: []Want{{Name: "stats"}, {Name: "slug", Constraint: "~1.0.0"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.ProjectWritten || !res.LockWritten {
		t.Errorf("add wrote project %v, lock %v; want both", res.ProjectWritten, res.LockWritten)
	}
	data, _ := os.ReadFile(m.Project.Path())
	for _, want := range []string{`stats: ^1.0.0`, `slug: ~1.0.0`} {
		if !strings.Contains(strings.ReplaceAll(string(data), `"`, ""), want) {
			t.Errorf("skills.yaml lacks %q:\n%s", want, data)
		}
	}

	var ue *UnknownSkillError
	if _, err := m.Remove(ctx, RemoveOptions{Names: []string{"nope"}}); !errors.As(err, &ue) || ue.Name != "nope" {
		t.Fatalf("remove nope: err = %v; want an UnknownSkillError", err)
	}
	if _, err := m.Update(ctx, UpdateOptions{Names: []string{"nope"}}); !errors.As(err, &ue) {
		t.Fatalf("update nope: err = %v; want an UnknownSkillError", err)
	}

	res, err = m.Remove(ctx, RemoveOptions{Names: []string{"stats"}})
	if err != nil {
		t.Fatal(err)
	}
	var removed bool
	for _, s := range res.Skills() {
		if s.Name == "stats" && s.Action == install.ActionRemove && s.Folders == 2 {
			removed = true
		}
	}
	if !removed {
		t.Errorf("remove stats: %+v; want stats removed from 2 folders", res.Skills())
	}
	lock, err := lockfile.Read(m.LockPath())
	if err != nil || lock.Find("stats") != nil {
		t.Errorf("lock after remove: %v, stats %v", err, lock.Find("stats"))
	}

	if _, err := m.Update(ctx, UpdateOptions{DryRun: true}); err != nil {
		t.Fatal(err)
	}
}
