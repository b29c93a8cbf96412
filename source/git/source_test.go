package git

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
)

func TestTagVersion(t *testing.T) {
	for _, tc := range []struct {
		tag, name, dir string
		want           string
		prefixed       bool
	}{
		{"v1.2.0", "pdf", "skills/pdf", "1.2.0", false},
		{"1.2.0", "pdf", "", "1.2.0", false},
		{"pdf/v1.2.0", "pdf", "skills/pdf", "1.2.0", true},
		{"pdf@1.2.0", "pdf", "", "1.2.0", true},
		{"skills/pdf/v2.0.0", "pdf", "skills/pdf", "2.0.0", true},
		{"docs/v1.0.0", "pdf-tools", "docs", "1.0.0", true}, // the folder's name
		{"csv/v1.2.0", "pdf", "skills/pdf", "", false},      // another skill's tag
		{"v1.2", "pdf", "", "", false},
		{"release-1", "pdf", "", "", false},
		{"pdf/v1.2.0-rc.1", "pdf", "", "1.2.0-rc.1", true},
	} {
		v, prefixed := TagVersion(tc.tag, tc.name, tc.dir)
		got := ""
		if v != nil {
			got = v.Original()
		}
		if got != tc.want || prefixed != tc.prefixed {
			t.Errorf("TagVersion(%q, %q, %q) = %q, %v; want %q, %v", tc.tag, tc.name, tc.dir, got, prefixed, tc.want, tc.prefixed)
		}
	}
}

func TestKindVersions(t *testing.T) {
	bare, c1, c2 := monorepo(t)
	// A plain tag that prefixed tags hide for pdf, and csv sees.
	gitRun(t, bare, "tag", "v9.0.0", c1)
	k := &Kind{Client: newClient(t)}
	ctx := context.Background()
	url := "file://" + bare

	cands, err := k.Versions(ctx, source.Entry{Name: "pdf", Location: url, Path: "skills/pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cands) != 2 || cands[0].Version.String() != "1.0.0" || cands[1].Version.String() != "1.1.0" {
		t.Fatalf("pdf versions = %v; want 1.0.0 and 1.1.0 only (prefixed tags win over v9.0.0)", cands)
	}
	if cands[1].Pin != (lockfile.Source{Commit: c2, Ref: "refs/tags/pdf/v1.1.0"}) || cands[1].Tracked {
		t.Errorf("pdf 1.1.0 pin = %+v tracked=%v; want the annotated tag peeled to %s, not tracked", cands[1].Pin, cands[1].Tracked, c2)
	}
	cands, err = k.Versions(ctx, source.Entry{Name: "csv", Location: url, Path: "skills/csv"})
	if err != nil || len(cands) != 1 || cands[0].Version.String() != "9.0.0" {
		t.Fatalf("csv versions = %v, %v; want the plain tag 9.0.0", cands, err)
	}
	cands, err = k.Versions(ctx, source.Entry{Name: "pdf", Location: url, Path: "skills/pdf", Ref: "main"})
	if err != nil || len(cands) != 1 || !cands[0].Tracked || cands[0].Version != nil || cands[0].Pin.Commit != c2 || cands[0].Pin.Ref != "refs/heads/main" {
		t.Fatalf("ref main = %+v, %v; want one tracked, unversioned candidate at %s", cands, err, c2)
	}
	cands, err = k.Versions(ctx, source.Entry{Name: "pdf", Location: url, Ref: c1})
	if err != nil || len(cands) != 1 || cands[0].Pin != (lockfile.Source{Commit: c1}) || cands[0].Tracked {
		t.Fatalf("a commit = %+v, %v; want it pinned", cands, err)
	}
	if _, err := k.Versions(ctx, source.Entry{Name: "pdf", Location: url, Ref: "nosuch"}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("missing ref: %v; want source.ErrNotFound", err)
	}
	if _, err := k.Versions(ctx, source.Entry{Name: "pdf", Location: "file://" + filepath.Join(t.TempDir(), "none")}); !errors.Is(err, source.ErrNotFound) {
		t.Errorf("missing repository: %v; want source.ErrNotFound", err)
	}
}

func TestKindExportMovedTagAndGoneCommit(t *testing.T) {
	bare, c1, c2 := monorepo(t)
	ctx := context.Background()
	url := "file://" + bare
	e := source.Entry{Name: "pdf", Location: url, Path: "skills/pdf"}

	// The tag pdf/v1.0.0 names c1; a pin that says c2 came from it is a
	// moved tag.
	k := &Kind{Client: newClient(t)}
	err := k.Export(ctx, e, lockfile.Source{Commit: c2, Ref: "refs/tags/pdf/v1.0.0"}, filepath.Join(t.TempDir(), "out"))
	if !errors.Is(err, source.ErrPinMismatch) {
		t.Fatalf("moved tag: %v; want ErrPinMismatch", err)
	}
	dst := filepath.Join(t.TempDir(), "out")
	if err := k.Export(ctx, e, lockfile.Source{Commit: c1, Ref: "refs/tags/pdf/v1.0.0"}, dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	// A commit that is not in the repository (force-pushed away and
	// collected) cannot be fetched: ErrPinMismatch, not a silent update.
	gone := "0123456789abcdef0123456789abcdef01234567"
	err = k.Export(ctx, e, lockfile.Source{Commit: gone, Ref: "refs/heads/main"}, filepath.Join(t.TempDir(), "out"))
	if !errors.Is(err, source.ErrPinMismatch) {
		t.Fatalf("gone commit: %v; want ErrPinMismatch", err)
	}
	// A folder that is not in the commit.
	err = k.Export(ctx, source.Entry{Name: "x", Location: url, Path: "skills/nosuch"}, lockfile.Source{Commit: c1}, filepath.Join(t.TempDir(), "out"))
	if !errors.Is(err, source.ErrNotFound) {
		t.Fatalf("missing folder: %v; want ErrNotFound", err)
	}
}

func TestKindSkills(t *testing.T) {
	bare, _, _ := monorepo(t)
	k := &Kind{Client: newClient(t)}
	dirs, err := k.Skills(context.Background(), source.Entry{Location: "file://" + bare})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != 2 || dirs[0] != "skills/csv" || dirs[1] != "skills/pdf" {
		t.Errorf("Skills = %v; want skills/csv, skills/pdf", dirs)
	}
}

func TestClassify(t *testing.T) {
	for msg, want := range map[string]error{
		"fatal: could not read Username for 'https://example.com': terminal prompts disabled":        ErrAuth,
		"git@example.com: Permission denied (publickey).":                                            ErrAuth,
		"remote: Repository not found.\nfatal: repository 'https://github.com/a/b.git/' not found":   ErrNotFound,
		"fatal: unable to access 'https://nonexistent.invalid/': Could not resolve host":             ErrFailed,
		"error: file write error: No space left on device\nfatal: unable to write loose object file": syscall.ENOSPC,
		"fatal: write error: Disk quota exceeded":                                                    syscall.EDQUOT,
	} {
		if err := classify("/cache/git/r", msg); !errors.Is(err, want) {
			t.Errorf("classify(%q) = %v; want %v", msg, err, want)
		}
	}
	// A full disk is named where git wrote, and is no failure of the
	// repository's.
	err := classify("/cache/git/r", "fatal: write error: No space left on device")
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Path != "/cache/git/r" || errors.Is(err, ErrFailed) {
		t.Errorf("classify of a full disk = %v; want a *fs.PathError for /cache/git/r, not ErrFailed", err)
	}
}

// A repository whose root is the skill exports its root folder.
func TestKindExportRoot(t *testing.T) {
	root := t.TempDir()
	gitRun(t, root, "init", "--quiet", "-b", "main")
	writeFile(t, filepath.Join(root, "SKILL.md"), skillMD("solo", "1.0.0"))
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "--quiet", "-m", "one")
	c := gitRun(t, root, "rev-parse", "HEAD")
	k := &Kind{Client: newClient(t)}
	dst := filepath.Join(t.TempDir(), "out")
	if err := k.Export(context.Background(), source.Entry{Name: "solo", Location: "file://" + root}, lockfile.Source{Commit: c, Ref: "refs/heads/main"}, dst); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
}

// A git server's own full disk, in the lines git relays from it, is no
// full disk here: it stays the repository's failure, with no hint to
// free local space (a hostile server could print it at will).
func TestClassifyRemoteFullDisk(t *testing.T) {
	for _, msg := range []string{
		"remote: fatal: write error: No space left on device\nfatal: the remote end hung up unexpectedly",
		"remote: error: Disk quota exceeded\nerror: failed to push some refs",
		"fatal: remote error: upload-pack: No space left on device",
	} {
		err := classify("/cache/git/r", msg)
		var pe *fs.PathError
		if errors.As(err, &pe) || !errors.Is(err, ErrFailed) {
			t.Errorf("classify(%q) = %v; want ErrFailed, no local file error", msg, err)
		}
	}
}
