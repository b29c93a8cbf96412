package git

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
)

// A project's entry may read a file:// repository inside the project, or
// under a folder the user allows; one elsewhere on the machine is refused
// by every method, before git runs, naming the fix. An entry without a
// project (a source the user typed) is not limited.
func TestLocalRepositoryOutsideProject(t *testing.T) {
	bare, c1, _ := monorepo(t)
	ctx := context.Background()
	project := t.TempDir()
	e := source.Entry{Name: "pdf", Location: "file://" + bare, Path: "skills/pdf", Root: project}

	k := &Kind{Client: newClient(t)}
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrLocalOutside) || !strings.Contains(err.Error(), "allow_local_git") || !strings.Contains(err.Error(), project) {
			t.Errorf("%s: %v; want ErrLocalOutside naming the project and allow_local_git", what, err)
		}
	}
	_, err := k.Versions(ctx, e)
	check("Versions", err)
	_, err = k.Skills(ctx, e)
	check("Skills", err)
	dst := filepath.Join(t.TempDir(), "out")
	check("Export", k.Export(ctx, e, lockfile.Source{Commit: c1}, dst))
	if _, err := os.Stat(dst); err == nil {
		t.Error("Export wrote the refused repository")
	}
	check("Check", k.Check(ctx, e, lockfile.Source{Commit: c1, Ref: "refs/heads/main"}))

	// A link inside the project that leads to the repository does not
	// bring it inside.
	link := filepath.Join(project, "repo.git")
	if err := os.Symlink(bare, link); err != nil {
		t.Fatal(err)
	}
	_, err = k.Versions(ctx, source.Entry{Name: "pdf", Location: "file://" + link, Path: "skills/pdf", Root: project})
	check("Versions through a link", err)

	// Allowed by the user (a folder above the repository): read.
	allowed := &Kind{Client: newClient(t), LocalRoots: []string{filepath.Dir(bare)}}
	if _, err := allowed.Versions(ctx, e); err != nil {
		t.Errorf("Versions under allow_local_git: %v", err)
	}
	// Inside the project: read.
	inside := filepath.Join(project, "vendor", "mono.git")
	if err := os.MkdirAll(filepath.Dir(inside), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(bare, inside); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Versions(ctx, source.Entry{Name: "pdf", Location: "file://" + inside, Path: "skills/pdf", Root: project}); err != nil {
		t.Errorf("Versions of a repository inside the project: %v", err)
	}
	// Typed by the user (no project): not limited.
	if _, err := k.Versions(ctx, source.Entry{Name: "pdf", Location: "file://" + inside, Path: "skills/pdf"}); err != nil {
		t.Errorf("Versions without a project: %v", err)
	}
}

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		root, p string
		want    bool
	}{
		{"/a/b", "/a/b", true},
		{"/a/b", "/a/b/c", true},
		{"/a/b", "/a/bc", false},
		{"/a/b", "/a", false},
		{"/a/b", "/a/b/../c", false},
		{"/a/b", "/x", false},
	} {
		if got := within(tc.root, filepath.Clean(tc.p)); got != tc.want {
			t.Errorf("within(%q, %q) = %v; want %v", tc.root, tc.p, got, tc.want)
		}
	}
}
