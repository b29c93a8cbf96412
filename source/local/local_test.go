package local

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

func TestVersionsAndExport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dev")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(md, []byte("---\nname: dev\ndescription: A skill in development.\n---\n# dev\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := &Kind{}
	ctx := context.Background()
	e := source.Entry{Name: "dev", Kind: "local", Location: dir, Repository: "local:dev"}
	cands, err := k.Versions(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 1 || !cands[0].Tracked || cands[0].Version != nil || cands[0].Pin.Digest == "" {
		t.Fatalf("Versions = %+v; want one tracked candidate pinned to a digest", cands)
	}
	again, _ := k.Versions(ctx, e)
	if again[0].Pin != cands[0].Pin {
		t.Errorf("the digest of an unchanged folder changed: %v, then %v", cands[0].Pin, again[0].Pin)
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := k.Export(ctx, e, cands[0].Pin, out); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "SKILL.md")); err != nil || len(b) == 0 {
		t.Fatalf("exported SKILL.md: %v", err)
	}
	// Changed since pinned: refused, nothing written.
	if err := os.WriteFile(md, []byte("---\nname: dev\ndescription: Changed since locked.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(t.TempDir(), "out")
	if err := k.Export(ctx, e, cands[0].Pin, out2); !errors.Is(err, source.ErrPinMismatch) {
		t.Fatalf("Export(changed folder) = %v; want ErrPinMismatch", err)
	}
	if _, err := os.Stat(out2); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused export left %s behind", out2)
	}
	// An escaping symlink is refused as in an OCI layer.
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	if _, err := k.Versions(ctx, e); err == nil {
		t.Error("Versions of a folder with an escaping symlink succeeded")
	}
}

func TestNotASkill(t *testing.T) {
	k := &Kind{}
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := k.Versions(ctx, source.Entry{Name: "x", Location: dir}); !errors.Is(err, source.ErrNotSkill) {
		t.Errorf("folder without SKILL.md: %v; want ErrNotSkill", err)
	}
	if _, err := k.Versions(ctx, source.Entry{Name: "x", Location: filepath.Join(dir, "none")}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("missing folder: %v; want ErrNotFound", err)
	}
}

// TestLinkOutOfProject: a local entry's folder, or a folder on its way,
// that is a link out of the project is refused with what to fix, by
// Versions and by Export, even though its path is written inside.
func TestLinkOutOfProject(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "SKILL.md"), []byte("---\nname: dev\ndescription: Outside the project.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	proj := t.TempDir()
	if err := os.MkdirAll(filepath.Join(proj, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(proj, "skills", "dev")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(proj, "up")); err != nil {
		t.Fatal(err)
	}
	k := &Kind{}
	ctx := context.Background()
	for _, rel := range []string{"skills/dev", "up/secret"} {
		e := source.Entry{Name: "dev", Kind: "local", Location: filepath.Join(proj, rel), Root: proj, Repository: "local:" + rel}
		_, err := k.Versions(ctx, e)
		if !errors.Is(err, source.ErrNotSkill) || !strings.Contains(err.Error(), "outside the project") {
			t.Errorf("Versions(%s, a link out of the project) = %v; want ErrNotSkill saying it leaves the project", rel, err)
		}
		out := filepath.Join(t.TempDir(), "out")
		if err := k.Export(ctx, e, lockfile.Source{Digest: "sha256:" + strings.Repeat("0", 64)}, out); !errors.Is(err, source.ErrNotSkill) {
			t.Errorf("Export(%s) = %v; want ErrNotSkill", rel, err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a refused export left %s behind", out)
		}
	}
	// A link that stays inside the project is fine.
	inside := filepath.Join(proj, "real")
	if err := os.MkdirAll(inside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(inside, "SKILL.md"), []byte("---\nname: dev\ndescription: Inside.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real", filepath.Join(proj, "skills", "in")); err != nil {
		t.Fatal(err)
	}
	e := source.Entry{Name: "dev", Kind: "local", Location: filepath.Join(proj, "skills", "in"), Root: proj, Repository: "local:skills/in"}
	if _, err := k.Versions(ctx, e); err != nil {
		t.Errorf("Versions(a link inside the project) = %v", err)
	}
}
