package manager

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/project"
)

func TestStatusAndWhy(t *testing.T) {
	ctx := context.Background()
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")

	// No lock yet: nothing to report, and no skill to explain.
	st, err := m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lock != nil || st.Fresh || len(st.Skills) != 0 {
		t.Errorf("status without a lock = %+v; want no lock, not fresh, no skills", st)
	}
	if _, err := m.Why(ctx, "slug"); !errors.Is(err, ErrNotInstalled) || !strings.Contains(err.Error(), m.LockPath()) {
		t.Errorf("why without a lock: err = %v; want ErrNotInstalled naming %s", err, m.LockPath())
	}

	if _, err := m.Install(ctx, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	why, err := m.Why(ctx, "slug")
	if err != nil {
		t.Fatal(err)
	}
	if why.Version != "1.2.0" || len(why.Paths) != 1 || strings.Join(why.Paths[0], ">") != "notes>slug" || why.Lock.Find("notes") == nil {
		t.Errorf("why slug = %+v; want 1.2.0 through notes", why)
	}
	if _, err := m.Why(ctx, "legacy"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("why of a skill not locked: err = %v; want ErrNotInstalled", err)
	}

	// A deleted folder is reported missing; a changed skills.yaml makes
	// the lock stale.
	if err := os.RemoveAll(filepath.Join(m.TargetDirs()[0], "stats")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(m.Project.Path(), []byte("registry: oci:./registry\nskills:\n  notes: ^1.1\n"), 0o644)
	if m.Project, err = project.Load(m.Project.Dir()); err != nil {
		t.Fatal(err)
	}
	st, err = m.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lock == nil || st.Fresh {
		t.Errorf("status after editing skills.yaml: lock %v, fresh %v; want a stale lock", st.Lock != nil, st.Fresh)
	}
	states := map[install.State]int{}
	for _, s := range st.Skills {
		states[s.State]++
	}
	if states[install.StateMissing] != 1 || states[install.StateOK] != 5 {
		t.Errorf("states = %v; want 1 missing, 5 ok (3 skills x 2 targets)", states)
	}
}

func TestOutdated(t *testing.T) {
	ctx := context.Background()
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ~1.0.0\n")
	if _, err := m.Outdated(ctx); !errors.Is(err, ErrStaleLock) {
		t.Fatalf("outdated without a lock: err = %v; want ErrStaleLock", err)
	}
	if _, err := m.Install(ctx, InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	rows, err := m.Outdated(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// notes is held at 1.0.x by skills.yaml; 1.1.0 is newer, the
	// 2.0.0 prerelease is not offered. slug (1.2.0) is current.
	want := OutdatedSkill{Name: "notes", Current: "1.0.0", Wanted: "1.0.0", Latest: "1.1.0"}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("outdated = %+v; want [%+v]", rows, want)
	}
}
