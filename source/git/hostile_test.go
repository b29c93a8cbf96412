package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/registry"
)

// TestHostileTrees: a skill folder that is itself a link, one holding a
// submodule (a gitlink), one with more files or bigger files than the
// limits, and one whose .gitattributes asks git archive to substitute
// text. Each is refused with nothing left in dst, or exported exactly as
// committed.
func TestHostileTrees(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work")
	os.Mkdir(work, 0o755)
	gitRun(t, work, "init", "--quiet", "-b", "main")
	writeFile(t, filepath.Join(work, "real/SKILL.md"), skillMD("real", "1.0.0"))
	if err := os.Symlink("real", filepath.Join(work, "linked")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "many/SKILL.md"), skillMD("many", "1.0.0"))
	for i := range 30 {
		writeFile(t, filepath.Join(work, fmt.Sprintf("many/f%02d.md", i)), "x\n")
	}
	writeFile(t, filepath.Join(work, "big/SKILL.md"), skillMD("big", "1.0.0"))
	writeFile(t, filepath.Join(work, "big/blob.bin"), string(make([]byte, 64<<10)))
	writeFile(t, filepath.Join(work, "subst/SKILL.md"), skillMD("subst", "1.0.0")+"$Format:%d %H$\n")
	writeFile(t, filepath.Join(work, "subst/.gitattributes"), "* export-subst\n")
	gitRun(t, work, "add", "-A")
	// A submodule entry in the skill folder, without fetching anything.
	gitRun(t, work, "update-index", "--add", "--cacheinfo", "160000,"+"0123456789abcdef0123456789abcdef01234567,real/vendored")
	gitRun(t, work, "commit", "--quiet", "-m", "hostile")
	commit := gitRun(t, work, "rev-parse", "HEAD")
	c := newClient(t)
	c.Limits = registry.Limits{MaxFiles: 20, MaxFileSize: 32 << 10}
	ctx := context.Background()
	url := "file://" + work
	if err := c.Fetch(ctx, url, commit); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		want error
	}{
		{"linked", ErrNotFound},
		{"many", registry.ErrUnsafeArchive},
		{"big", registry.ErrUnsafeArchive},
	} {
		dst := filepath.Join(t.TempDir(), "out")
		err := c.Export(ctx, url, commit, tc.dir, dst)
		if !errors.Is(err, tc.want) {
			t.Errorf("Export(%s) = %v; want %v", tc.dir, err, tc.want)
		}
		if _, serr := os.Stat(dst); !os.IsNotExist(serr) {
			t.Errorf("Export(%s) left %s behind", tc.dir, dst)
		}
	}
	// The submodule is not followed: at most an empty folder, as git archive writes it.
	dst := filepath.Join(t.TempDir(), "real")
	if err := c.Export(ctx, url, commit, "real", dst); err != nil {
		t.Fatalf("Export(real) = %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dst, "vendored")); len(ents) != 0 {
		t.Errorf("Export(real) wrote %d entries into the submodule's folder; want none", len(ents))
	}
	// export-subst would make the packed files depend on the cache's refs.
	dst = filepath.Join(t.TempDir(), "subst")
	if err := c.Export(ctx, url, commit, "subst", dst); err != nil {
		t.Fatalf("Export(subst) = %v", err)
	}
	got, _ := os.ReadFile(filepath.Join(dst, "SKILL.md"))
	if want := skillMD("subst", "1.0.0") + "$Format:%d %H$\n"; string(got) != want {
		t.Errorf("Export(subst) SKILL.md = %q; want the committed text %q", got, want)
	}
}
