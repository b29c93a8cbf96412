package manager

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/local"
)

func TestPolicyName(t *testing.T) {
	for repo, want := range map[string]string{
		"git+https://github.com/Acme/skills.git//skills/pdf": "github.com/Acme/skills/skills/pdf", // policy prefixes are compared canonically
		"git+https://github.com/acme/skills.git":             "github.com/acme/skills",
		"git+ssh://git@gitlab.com/g/r.git//x":                "gitlab.com/g/r/x",
		"git+git@github.com:acme/skills.git//pdf":            "github.com/acme/skills/pdf",
		"git+file:///srv/mono//skills/a":                     "file:/srv/mono/skills/a",
		"wellknown+https://example.com/docs":                 "example.com/docs",
		"local:skills/dev":                                   "local:skills/dev",
		// Dot segments are resolved: a name cannot pose under a prefix
		// it is not under.
		"git+file:///srv/trusted/../other/r.git//a":         "file:/srv/other/r/a",
		"git+https://github.com/acme/../evil/skills.git":    "github.com/evil/skills",
		"git+https://github.com/acme/skills.git//a/../../x": "github.com/acme/skills/x",
		"git+https://github.com/acme/./skills.git//./pdf":   "github.com/acme/skills/pdf",
	} {
		if got := PolicyName(repo); got != want {
			t.Errorf("PolicyName(%q) = %q; want %q", repo, got, want)
		}
	}
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func writeT(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// sourcedProject is a project whose skills.yaml is yaml, with git and
// local sources and a cache of its own.
func sourcedProject(t *testing.T, yaml string) *Manager {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed: %v", err)
	}
	dir := t.TempDir()
	writeT(t, filepath.Join(dir, project.FileName), yaml)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	gc := &git.Client{CacheDir: filepath.Join(cache, "git"), Env: []string{"GIT_CONFIG_GLOBAL=/dev/null"}}
	return &Manager{Scope: project.Scope{Project: p}, Registry: &memRegistry{skills: map[string]map[string][]string{}},
		// The test repositories live in other temporary folders than the
		// project: allowed as a user's allow_local_git would.
		Sources: map[string]source.Source{project.KindGit: &git.Kind{Client: gc, LocalRoots: []string{os.TempDir()}}, project.KindLocal: &local.Kind{}},
		Store:   &source.Store{Dir: filepath.Join(cache, "sources"), Client: registry.NewClient(registry.Options{})}}
}

// repoT makes a repository with skills/alpha (tagged alpha/v1.0.0 and
// alpha/v1.1.0) and returns its path and the tagged commits.
func repoT(t *testing.T) (string, string, string) {
	work := t.TempDir()
	gitT(t, work, "init", "-q", "-b", "main")
	writeT(t, filepath.Join(work, "skills/alpha/SKILL.md"), "---\nname: alpha\ndescription: The alpha skill for tests.\ndepends_on:\n  - dev\n---\n# alpha\n")
	gitT(t, work, "add", "-A")
	gitT(t, work, "commit", "-q", "-m", "one")
	gitT(t, work, "tag", "alpha/v1.0.0")
	c1 := gitT(t, work, "rev-parse", "HEAD")
	writeT(t, filepath.Join(work, "skills/alpha/more.md"), "more\n")
	gitT(t, work, "add", "-A")
	gitT(t, work, "commit", "-q", "-m", "two")
	gitT(t, work, "tag", "alpha/v1.1.0")
	return work, c1, gitT(t, work, "rev-parse", "HEAD")
}

const devSkill = "---\nname: dev\ndescription: A local skill for tests.\nversion: 0.2.0\n---\n# dev\n"

func TestResolveSources(t *testing.T) {
	work, c1, c2 := repoT(t)
	m := sourcedProject(t, "skills:\n  alpha:\n    git: file://"+work+"\n    path: skills/alpha\n    version: ~1.0.0\n  dev:\n    local: ./dev\n")
	writeT(t, filepath.Join(m.Project.Dir(), "dev/SKILL.md"), devSkill)
	ctx := context.Background()
	lock, _, err := m.Resolve(ctx, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, d := lock.Find("alpha"), lock.Find("dev")
	if a == nil || a.Version != "1.0.0" || a.Repository != "git+file://"+work+"//skills/alpha" ||
		*a.Source != (lockfile.Source{Commit: c1, Ref: "refs/tags/alpha/v1.0.0"}) {
		t.Fatalf("alpha = %+v; want 1.0.0 at %s from its tag", a, c1)
	}
	// depends_on: dev is found through its skills.yaml entry, a local folder.
	if len(a.Dependencies) != 1 || a.Dependencies[0] != "dev" {
		t.Errorf("alpha dependencies = %v; want dev", a.Dependencies)
	}
	if d == nil || d.Version != "0.2.0" || d.Repository != "local:dev" || d.Source == nil || !lockfile.ValidDigest(d.Source.Digest) {
		t.Fatalf("dev = %+v; want 0.2.0 pinned by digest", d)
	}
	if err := m.CheckLock(ctx, lock); err != nil {
		t.Fatalf("CheckLock of a fresh lock: %v", err)
	}

	// A lock that names another source, or another commit, is refused.
	bad := *lock
	bad.Skills = append([]lockfile.Skill(nil), lock.Skills...)
	bad.Skills[0].Repository = "git+file:///elsewhere//skills/alpha"
	var le *LockError
	if err := m.CheckLock(ctx, &bad); !errors.As(err, &le) {
		t.Errorf("CheckLock(another repository) = %v; want a LockError", err)
	}
	bad.Skills[0] = *a
	branch := *a.Source
	branch.Ref = "refs/heads/main"
	bad.Skills[0].Source = &branch
	if err := m.CheckLock(ctx, &bad); !errors.As(err, &le) || !strings.Contains(err.Error(), "asks for versions (tags)") {
		t.Errorf("CheckLock(a branch pin for a version constraint) = %v; want a LockError", err)
	}
	bad.Skills[0] = *a
	src := *a.Source
	src.Commit = c2
	bad.Skills[0].Source = &src
	if err := m.CheckLock(ctx, &bad); !errors.Is(err, source.ErrPinMismatch) || !errors.Is(err, registry.ErrIntegrity) {
		t.Errorf("CheckLock(another commit for the tag) = %v; want ErrPinMismatch (integrity)", err)
	}

	// The tag is moved: re-resolving keeps nothing silently.
	writeT(t, filepath.Join(work, "skills/alpha/SKILL.md"), "---\nname: alpha\ndescription: Moved.\ndepends_on:\n  - dev\n---\n")
	gitT(t, work, "commit", "-q", "-am", "moved")
	gitT(t, work, "tag", "-f", "alpha/v1.0.0")
	m.Sources[project.KindGit] = &git.Kind{Client: m.Sources[project.KindGit].(*git.Kind).Client, LocalRoots: []string{os.TempDir()}} // a new run
	if _, _, err := m.Resolve(ctx, ResolveOptions{Previous: lock}); !errors.Is(err, source.ErrPinMismatch) {
		t.Fatalf("re-resolve over a moved tag = %v; want ErrPinMismatch", err)
	}
	up, _, err := m.Resolve(ctx, ResolveOptions{Previous: lock, Upgrade: []string{"alpha"}})
	if err != nil {
		t.Fatalf("update over a moved tag: %v", err)
	}
	if up.Find("alpha").Source.Commit == c1 {
		t.Error("update kept the old commit of a moved tag")
	}
}

func TestBranchStaysAtLockedCommit(t *testing.T) {
	work, _, c2 := repoT(t)
	m := sourcedProject(t, "skills:\n  alpha:\n    git: file://"+work+"\n    path: skills/alpha\n    ref: main\n  dev:\n    local: ./dev\n")
	writeT(t, filepath.Join(m.Project.Dir(), "dev/SKILL.md"), devSkill)
	ctx := context.Background()
	lock, _, err := m.Resolve(ctx, ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := lock.Find("alpha"); s.Version != "0.0.0" || s.Source.Commit != c2 || s.Source.Ref != "refs/heads/main" {
		t.Fatalf("alpha = %+v; want 0.0.0 at %s tracking main", s, c2)
	}
	writeT(t, filepath.Join(work, "skills/alpha/new.md"), "new\n")
	gitT(t, work, "add", "-A")
	gitT(t, work, "commit", "-q", "-m", "three")
	m.Sources[project.KindGit] = &git.Kind{Client: m.Sources[project.KindGit].(*git.Kind).Client, LocalRoots: []string{os.TempDir()}}
	again, _, err := m.Resolve(ctx, ResolveOptions{Previous: lock})
	if err != nil {
		t.Fatal(err)
	}
	if again.Find("alpha").Source.Commit != c2 {
		t.Error("a re-resolve moved a tracked branch without an update")
	}
	m.Sources[project.KindGit] = &git.Kind{Client: m.Sources[project.KindGit].(*git.Kind).Client, LocalRoots: []string{os.TempDir()}}
	up, _, err := m.Resolve(ctx, ResolveOptions{Previous: lock, UpgradeAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if up.Find("alpha").Source.Commit == c2 {
		t.Error("update did not move the tracked branch")
	}
}
