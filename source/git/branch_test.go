package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
)

// TestKindCheckBranch: a branch pin passes at the tip and at an older
// commit of the branch (found by a deeper fetch); a commit of another
// branch claimed as main, and a branch that is gone, are pin mismatches.
// A commit found on its branch is remembered: checked again with the
// repository gone, it passes.
func TestKindCheckBranch(t *testing.T) {
	bare, c1, c2 := monorepo(t)
	work := filepath.Join(filepath.Dir(bare), "work")
	gitRun(t, work, "checkout", "--quiet", "-b", "feature", c1)
	writeFile(t, filepath.Join(work, "skills/pdf/extra.md"), "feature\n")
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "--quiet", "-m", "feature")
	f1 := gitRun(t, work, "rev-parse", "HEAD")
	gitRun(t, work, "push", "--quiet", bare, "feature")
	url := "file://" + bare
	ctx := context.Background()
	c := newClient(t)
	k := &Kind{Client: c}
	e := source.Entry{Name: "pdf", Kind: "git", Location: url, Path: "skills/pdf", Ref: "main"}
	for _, tc := range []struct {
		name string
		pin  lockfile.Source
		want error
	}{
		{"the tip", lockfile.Source{Commit: c2, Ref: "refs/heads/main"}, nil},
		{"an ancestor", lockfile.Source{Commit: c1, Ref: "refs/heads/main"}, nil},
		{"another branch's commit", lockfile.Source{Commit: f1, Ref: "refs/heads/main"}, source.ErrPinMismatch},
		{"a gone branch", lockfile.Source{Commit: c1, Ref: "refs/heads/gone"}, source.ErrPinMismatch},
		{"a tag (checked by Export)", lockfile.Source{Commit: f1, Ref: "refs/tags/pdf/v1.0.0"}, nil},
	} {
		err := k.Check(ctx, e, tc.pin)
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Check(%s) = %v; want %v", tc.name, err, tc.want)
		}
	}
	if err := os.RemoveAll(bare); err != nil {
		t.Fatal(err)
	}
	k = &Kind{Client: c} // a new run: no refs listed yet
	if err := k.Check(ctx, e, lockfile.Source{Commit: c1, Ref: "refs/heads/main"}); err != nil {
		t.Errorf("Check of a commit found on its branch before, offline = %v; want nil", err)
	}
	if err := k.Check(ctx, e, lockfile.Source{Commit: f1, Ref: "refs/heads/main"}); err == nil {
		t.Error("Check of a commit refused before, offline = nil; want an error")
	}
}
