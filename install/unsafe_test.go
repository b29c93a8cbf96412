package install

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A skill whose content holds a .git folder is refused before anything
// is swapped in: git takes such a folder inside the project for a
// repository of its own, and its config (core.fsmonitor, core.pager)
// names commands git runs there. skillpm's pack leaves .git out, and git
// itself never checks one out of a repository.
func TestSyncRefusesGitFolderInContent(t *testing.T) {
	for _, rel := range []string{".git/config", "scripts/.git/config", ".GIT/config", "scripts/.git"} {
		t.Run(rel, func(t *testing.T) {
			f := newFixture(t)
			l := f.lock("alpha@1.0.0")
			f.src.byManifest[l.Skills[0].Manifest][rel] = "[core]\n\tfsmonitor = touch /tmp/pwned\n"
			before := f.snapshot()
			_, err := f.sync(l, false)
			var ue *UnsafeContentError
			if !errors.As(err, &ue) || !errors.Is(err, ErrUnsafeContent) || !strings.Contains(err.Error(), "alpha") {
				t.Fatalf("Sync of a skill holding %s: %v; want an UnsafeContentError naming alpha", rel, err)
			}
			if got := f.snapshot(); got != before {
				t.Errorf("refused run wrote:\n%s\nwant\n%s", got, before)
			}
			for _, tg := range f.targets {
				ents, _ := os.ReadDir(tg)
				for _, e := range ents {
					t.Errorf("left in %s: %s", filepath.Base(tg), e.Name())
				}
			}
		})
	}
	// A file merely named like it is fine.
	f := newFixture(t)
	l := f.lock("alpha@1.0.0")
	f.src.byManifest[l.Skills[0].Manifest]["docs/.gitignore"] = "x\n"
	if _, err := Sync(context.Background(), l, Options{Targets: f.targets, Source: f.src}); err != nil {
		t.Fatalf("a .gitignore: %v", err)
	}
}
