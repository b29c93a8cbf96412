package sync

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/wellknown"
)

func writeSkill(t *testing.T, dir, name, version, extra string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + name + "\ndescription: Test skill " + name + ". Use it in tests.\n"
	if version != "" {
		md += "version: " + version + "\n"
	}
	md += extra + "---\n\n# " + name + "\n\nDo the thing.\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// A monorepo's semver tags become the mirror's versions: a plain tag
// versions every skill, a prefixed one a single skill.
func TestRunGitUpstream(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is required")
	}
	repo := t.TempDir()
	gitRun(t, repo, "init", "-q", "-b", "main")
	writeSkill(t, filepath.Join(repo, "skills", "pdf"), "pdf", "", "license: MIT\n")
	writeSkill(t, filepath.Join(repo, "skills", "gpl"), "gpl", "", "license: GPL-3.0-only\n")
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-qm", "one")
	gitRun(t, repo, "tag", "v1.0.0")
	os.WriteFile(filepath.Join(repo, "skills", "pdf", "notes.md"), []byte("more\n"), 0o644)
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-qm", "two")
	gitRun(t, repo, "tag", "pdf/v1.1.0")

	c := registry.NewClient(registry.Options{})
	mirror := filepath.Join(t.TempDir(), "mirror")
	cfg := &Config{From: "file://" + repo + "//skills", To: "oci:" + mirror, Policy: Policy{Lint: "error", Licenses: []string{"MIT"}}}
	gc := &git.Client{CacheDir: t.TempDir()}
	up, err := ParseUpstream(cfg.From, gc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := up.(*GitUpstream); !ok {
		t.Fatalf("ParseUpstream(%q) = %T; want a git upstream", cfg.From, up)
	}
	rep, err := Run(bg, Options{Config: cfg, Client: c, Upstream: up})
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("Run = %v; want ErrRejected (gpl)", err)
	}
	got := byName(rep)
	for _, k := range []string{"pdf@1.0.0", "pdf@1.1.0"} {
		if got[k].Action != ActionCopied {
			t.Errorf("%s: %+v; want copied", k, got[k])
		}
	}
	if it := got["gpl@1.0.0"]; it.Action != ActionRejected || it.Check != "license" {
		t.Errorf("gpl@1.0.0: %+v; want rejected by license", it)
	}
	if _, ok := got["gpl@1.1.0"]; ok {
		t.Errorf("gpl got pdf's tag pdf/v1.1.0")
	}
	pulled := filepath.Join(t.TempDir(), "pdf")
	ref, _ := registry.ParseReference("oci:" + filepath.Join(mirror, "pdf") + ":1.1.0")
	res, err := c.Resolve(bg, ref)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Extract(bg, res, pulled, registry.PullOptions{}); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(pulled, "notes.md")); err != nil || string(b) != "more\n" {
		t.Errorf("pdf 1.1.0 notes.md = %q, %v", b, err)
	}

	// Incremental: the same commits pack to the same digests.
	rep, _ = Run(bg, Options{Config: cfg, Client: c, Upstream: up})
	if it := byName(rep)["pdf@1.0.0"]; it.Action != ActionSkipped {
		t.Errorf("second run pdf@1.0.0: %+v; want skipped", it)
	}

	// A moved tag is rejected; the mirror keeps what it vetted.
	os.WriteFile(filepath.Join(repo, "skills", "pdf", "evil.md"), []byte("evil\n"), 0o644)
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-qm", "three")
	gitRun(t, repo, "tag", "-f", "pdf/v1.1.0")
	rep, _ = Run(bg, Options{Config: cfg, Client: c, Upstream: up})
	if it := byName(rep)["pdf@1.1.0"]; it.Action != ActionRejected || it.Check != "digest" {
		t.Errorf("moved tag pdf/v1.1.0: %+v; want rejected by digest", it)
	}
}

// A repository that tags more commits than one sync reads is refused
// before any of them is fetched.
func TestGitUpstreamTooManyTags(t *testing.T) {
	repo := t.TempDir()
	gitRun(t, repo, "init", "-q", "-b", "main")
	writeSkill(t, filepath.Join(repo, "pdf"), "pdf", "", "")
	for i := range 4 {
		os.WriteFile(filepath.Join(repo, "pdf", "n.md"), []byte(strings.Repeat("x", i+1)), 0o644)
		gitRun(t, repo, "add", ".")
		gitRun(t, repo, "commit", "-qm", "c")
		gitRun(t, repo, "tag", "v1.0."+string(rune('0'+i)))
	}
	gc := &git.Client{CacheDir: t.TempDir(), Limits: registry.Limits{MaxListItems: 3}}
	up, err := ParseUpstream("file://"+repo, gc, nil)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := up.Versions(bg)
	if !errors.Is(err, ErrTooMany) || !strings.Contains(err.Error(), "4 tagged commits, more than the 3") {
		t.Fatalf("Versions() = %d versions, %v; want ErrTooMany naming 4 and 3", len(vs), err)
	}
	if entries, _ := os.ReadDir(gc.CacheDir); len(entries) > 0 {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".git") {
				if refs, _ := os.ReadDir(filepath.Join(gc.CacheDir, e.Name(), "refs", "skillpm")); len(refs) > 0 {
					t.Errorf("%d commits were fetched before the refusal", len(refs))
				}
			}
		}
	}
	gc.Limits.MaxListItems = 4
	if vs, err := up.Versions(bg); err != nil || len(vs) != 4 {
		t.Errorf("with max_list_items 4: Versions() = %d versions, %v; want 4", len(vs), err)
	}
}

// A well-known origin's entries are mirrored at the index's versions (or
// the frontmatter's), and a changed artifact is rejected by its digest.
func TestRunWellKnownUpstream(t *testing.T) {
	src := t.TempDir()
	writeSkill(t, filepath.Join(src, "pdf"), "pdf", "1.0.0", "license: MIT\n")
	os.WriteFile(filepath.Join(src, "pdf", "notes.md"), []byte("n\n"), 0o644)
	writeSkill(t, filepath.Join(src, "nover"), "nover", "", "license: MIT\n")
	site := t.TempDir()
	if _, err := wellknown.Write(bg, site, []string{filepath.Join(src, "pdf"), filepath.Join(src, "nover")}, wellknown.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	c := registry.NewClient(registry.Options{})
	mirror := filepath.Join(t.TempDir(), "mirror")
	cfg := &Config{From: srv.URL, To: "oci:" + mirror}
	up, err := ParseUpstream(cfg.From, nil, &wellknown.Client{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(bg, Options{Config: cfg, Client: c, Upstream: up})
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("Run = %v; want ErrRejected (nover has no version)", err)
	}
	got := byName(rep)
	if it := got["pdf@1.0.0"]; it.Action != ActionCopied {
		t.Errorf("pdf@1.0.0: %+v; want copied", it)
	}
	if it := got["nover@"]; it.Action != ActionRejected || it.Check != "version" {
		t.Errorf("nover: %+v; want rejected for no version", it)
	}

	// The archive changes under the same index: the digest check rejects
	// it before anything is unpacked.
	arch := filepath.Join(site, ".well-known", "agent-skills", "pdf.tar.gz")
	b, _ := os.ReadFile(arch)
	os.WriteFile(arch, append(b, 0), 0o644)
	up, _ = ParseUpstream(cfg.From, nil, &wellknown.Client{CacheDir: t.TempDir()})
	rep, _ = Run(bg, Options{Config: cfg, Client: c, Upstream: up})
	if it := byName(rep)["pdf@1.0.0"]; it.Action != ActionRejected || it.Check != "content" || !strings.Contains(it.Reason, "digest") {
		t.Errorf("tampered pdf: %+v; want rejected by content (digest)", it)
	}
}

func TestParseUpstream(t *testing.T) {
	for _, tc := range []struct {
		from string
		want string // "git", "wellknown" or "" (a registry)
	}{
		{"ghcr.io/acme/skills", ""},
		{"127.0.0.1:5000/e2e/sync", ""},
		{"oci:/srv/skills", ""},
		{"github.com/anthropics/skills", "git"},
		{"https://github.com/anthropics/skills", "git"},
		{"https://git.example.com/r.git", "git"},
		{"git@github.com:o/r.git", "git"},
		{"file:///srv/repo", "git"},
		{"git+https://example.com/r", "git"},
		{"https://example.com/docs", "wellknown"},
		{"wellknown+https://github.com/x", "wellknown"},
	} {
		up, err := ParseUpstream(tc.from, &git.Client{}, &wellknown.Client{})
		if err != nil {
			t.Errorf("ParseUpstream(%q): %v", tc.from, err)
			continue
		}
		got := ""
		switch up.(type) {
		case *GitUpstream:
			got = "git"
		case *WellKnownUpstream:
			got = "wellknown"
		}
		if got != tc.want {
			t.Errorf("ParseUpstream(%q) = %T; want %q", tc.from, up, tc.want)
		}
	}
}

// A repository listing more skill versions than one sync reads is
// refused, as a well-known index with too many entries is: a tiny
// repository of one SKILL.md blob under many folder names would
// otherwise make a sync export, pack and vet every one of them.
func TestGitUpstreamTooManySkills(t *testing.T) {
	for _, tc := range []struct {
		name            string
		commits, skills int
	}{
		{"at one commit", 1, 4},
		{"over several commits", 2, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			gitRun(t, repo, "init", "-q", "-b", "main")
			for c := range tc.commits {
				for i := range tc.skills {
					name := "s" + string(rune('a'+i))
					writeSkill(t, filepath.Join(repo, name), name, "", strings.Repeat("x: y\n", c))
				}
				gitRun(t, repo, "add", ".")
				gitRun(t, repo, "commit", "-qm", "c")
				gitRun(t, repo, "tag", "v1.0."+string(rune('0'+c)))
			}
			gc := &git.Client{CacheDir: t.TempDir(), Limits: registry.Limits{MaxListItems: 3}}
			up, err := ParseUpstream("file://"+repo, gc, nil)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := up.Versions(bg)
			if !errors.Is(err, ErrTooMany) || !strings.Contains(err.Error(), "more than the 3") {
				t.Fatalf("Versions() = %d versions, %v; want ErrTooMany naming 3", len(vs), err)
			}
			gc.Limits.MaxListItems = 4
			if vs, err := up.Versions(bg); err != nil || len(vs) != 4 {
				t.Errorf("with max_list_items 4: Versions() = %d versions, %v; want 4", len(vs), err)
			}
		})
	}
}

// An upstream skill whose name is no skill name (a git folder named
// "UPPER", "pdf:9.9.9") is rejected as content, before its name is made
// a mirror repository: it is what the upstream serves, not a registry
// fault to retry.
func TestRunGitUpstreamInvalidName(t *testing.T) {
	repo := t.TempDir()
	gitRun(t, repo, "init", "-q", "-b", "main")
	for _, name := range []string{"UPPER", "pdf:9.9.9"} {
		writeSkill(t, filepath.Join(repo, name), name, "", "")
	}
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-qm", "c")
	gitRun(t, repo, "tag", "v1.0.0")
	gc := &git.Client{CacheDir: t.TempDir()}
	up, err := ParseUpstream("file://"+repo, gc, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Never contacted: nothing is copied.
	cfg := &Config{From: "file://" + repo, To: "registry.invalid/acme"}
	rep, err := Run(bg, Options{Config: cfg, Client: registry.NewClient(registry.Options{}), Upstream: up})
	if !errors.Is(err, ErrRejected) {
		t.Fatalf("Run = %v; want ErrRejected", err)
	}
	if len(rep.Items) != 2 {
		t.Fatalf("items: %+v; want 2", rep.Items)
	}
	for _, it := range rep.Items {
		if it.Action != ActionRejected || it.Check != "content" || !strings.Contains(it.Reason, "not a valid skill name") {
			t.Errorf("%s: %s %s %q; want rejected, content, not a valid skill name", it.Repository, it.Action, it.Check, it.Reason)
		}
	}
}
