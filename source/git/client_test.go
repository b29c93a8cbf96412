package git

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/registry"
)

// gitRun runs the real git in dir for a test fixture, with an identity
// and no user or system config.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, version string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: The %s skill. Use it in tests.\nversion: %s\n---\n# %s\n", name, name, version, name)
}

// monorepo makes a bare repository with two skills under skills/, a
// lightweight and an annotated tag, and returns its path and commits.
func monorepo(t *testing.T) (bare string, c1, c2 string) {
	t.Helper()
	root := t.TempDir()
	work := filepath.Join(root, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "init", "--quiet", "-b", "main")
	writeFile(t, filepath.Join(work, "skills/pdf/SKILL.md"), skillMD("pdf", "1.0.0"))
	writeFile(t, filepath.Join(work, "skills/pdf/scripts/run.sh"), "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(work, "skills/pdf/scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "skills/csv/SKILL.md"), skillMD("csv", "1.0.0"))
	writeFile(t, filepath.Join(work, "README.md"), "# skills\n")
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "--quiet", "-m", "one")
	c1 = gitRun(t, work, "rev-parse", "HEAD")
	gitRun(t, work, "tag", "pdf/v1.0.0")
	writeFile(t, filepath.Join(work, "skills/pdf/SKILL.md"), skillMD("pdf", "1.1.0"))
	gitRun(t, work, "commit", "--quiet", "-am", "two")
	c2 = gitRun(t, work, "rev-parse", "HEAD")
	gitRun(t, work, "tag", "-a", "-m", "release", "pdf/v1.1.0")
	bare = filepath.Join(root, "mono.git")
	gitRun(t, root, "clone", "--quiet", "--bare", work, bare)
	return bare, c1, c2
}

func newClient(t *testing.T) *Client {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed for these tests: %v", err)
	}
	return &Client{CacheDir: filepath.Join(t.TempDir(), "git"), Env: []string{"GIT_CONFIG_GLOBAL=/dev/null"}}
}

func TestRefsFetchExport(t *testing.T) {
	bare, c1, c2 := monorepo(t)
	url := "file://" + bare
	c := newClient(t)
	ctx := context.Background()
	refs, err := c.Refs(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range refs {
		got[r.Short()] = r.Commit
	}
	// The annotated tag is peeled to its commit.
	if got["pdf/v1.0.0"] != c1 || got["pdf/v1.1.0"] != c2 || got["main"] != c2 {
		t.Fatalf("Refs() = %v; want pdf/v1.0.0=%s, pdf/v1.1.0=%s and main=%s", got, c1, c2, c2)
	}
	if err := c.Fetch(ctx, url, c1); err != nil {
		t.Fatal(err)
	}
	dirs, err := c.SkillDirs(ctx, url, c1, "")
	if err != nil || !slices.Equal(dirs, []string{"skills/csv", "skills/pdf"}) {
		t.Fatalf("SkillDirs() = %q, %v; want skills/csv and skills/pdf", dirs, err)
	}
	dst := filepath.Join(t.TempDir(), "pdf")
	if err := c.Export(ctx, url, c1, "skills/pdf", dst); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dst, "SKILL.md"))
	if err != nil || !strings.Contains(string(b), "version: 1.0.0") {
		t.Fatalf("exported SKILL.md = %q, %v; want version 1.0.0 of commit one", b, err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "scripts/run.sh")); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("scripts/run.sh = %v, %v; want an executable file", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dst, "README.md")); !os.IsNotExist(err) {
		t.Errorf("README.md outside the folder was exported (stat: %v)", err)
	}

	// Warm: the commit is cached, so a fetch needs no repository at all.
	if err := os.RemoveAll(bare); err != nil {
		t.Fatal(err)
	}
	if err := c.Fetch(ctx, url, c1); err != nil {
		t.Fatalf("warm Fetch() with the remote gone = %v; want nil (cached)", err)
	}
	if err := c.Export(ctx, url, c1, "skills/csv", filepath.Join(t.TempDir(), "csv")); err != nil {
		t.Fatalf("warm Export() with the remote gone = %v", err)
	}
}

func TestMissing(t *testing.T) {
	bare, c1, _ := monorepo(t)
	url := "file://" + bare
	c := newClient(t)
	ctx := context.Background()
	if err := c.Fetch(ctx, url, c1); err != nil {
		t.Fatal(err)
	}
	if err := c.Export(ctx, url, c1, "skills/nope", filepath.Join(t.TempDir(), "x")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Export(missing folder) = %v; want ErrNotFound", err)
	}
	gone := strings.Repeat("ab", 20)
	if err := c.Fetch(ctx, url, gone); !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrFailed) {
		t.Errorf("Fetch(unknown commit) = %v; want ErrNotFound or ErrFailed", err)
	}
	if _, err := c.Refs(ctx, "file://"+filepath.Join(t.TempDir(), "none.git")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Refs(no repository) = %v; want ErrNotFound", err)
	}
	noGit := &Client{Git: filepath.Join(t.TempDir(), "no-git"), CacheDir: t.TempDir()}
	if _, err := noGit.Refs(ctx, url); !errors.Is(err, ErrNoGit) || !strings.Contains(err.Error(), "install git") {
		t.Errorf("Refs() without git = %v; want ErrNoGit saying to install git", err)
	}
}

// TestHostileRepository: a skill folder whose symlink points out of it is
// refused exactly as in an OCI layer, and nothing is left in dst.
func TestHostileRepository(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	os.Mkdir(work, 0o755)
	gitRun(t, work, "init", "--quiet", "-b", "main")
	writeFile(t, filepath.Join(work, "evil/SKILL.md"), skillMD("evil", "1.0.0"))
	if err := os.Symlink("../../../../etc/passwd", filepath.Join(work, "evil/passwd")); err != nil {
		t.Fatal(err)
	}
	gitRun(t, work, "add", "-A")
	gitRun(t, work, "commit", "--quiet", "-m", "evil")
	commit := gitRun(t, work, "rev-parse", "HEAD")
	c := newClient(t)
	ctx := context.Background()
	url := "file://" + work
	if err := c.Fetch(ctx, url, commit); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "evil")
	err := c.Export(ctx, url, commit, "evil", dst)
	if !errors.Is(err, registry.ErrUnsafeArchive) {
		t.Fatalf("Export(escaping symlink) = %v; want ErrUnsafeArchive", err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("dst exists after a refused export (stat: %v)", err)
	}
}

// TestGitDaemon reads the monorepo through a real git daemon (git://).
func TestGitDaemon(t *testing.T) {
	bare, _, c2 := monorepo(t)
	base := filepath.Dir(bare)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := exec.CommandContext(ctx, "git", "daemon", "--reuseaddr", "--export-all", "--base-path="+base,
		"--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)

	if err := d.Start(); err != nil {
		t.Fatalf("git daemon: %v", err)
	}
	defer func() { cancel(); d.Wait() }()
	url := fmt.Sprintf("git://127.0.0.1:%d/mono.git", port)
	c := newClient(t)
	var refs []Ref
	for deadline := time.Now().Add(20 * time.Second); ; {
		if refs, err = c.Refs(context.Background(), url); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Refs over git://: %v", err)
	}
	if !slices.ContainsFunc(refs, func(r Ref) bool { return r.Short() == "pdf/v1.1.0" && r.Commit == c2 }) {
		t.Fatalf("Refs() = %v; want pdf/v1.1.0 at %s", refs, c2)
	}
	if err := c.Fetch(context.Background(), url, c2); err != nil {
		t.Fatalf("Fetch over git://: %v", err)
	}
	if err := c.Export(context.Background(), url, c2, "skills/pdf", filepath.Join(t.TempDir(), "pdf")); err != nil {
		t.Fatalf("Export over git://: %v", err)
	}
}
