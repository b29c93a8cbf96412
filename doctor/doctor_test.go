package doctor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
)

// memRegistry serves pdf and slug at 1.0.0 and 1.1.0, without a network.
type memRegistry struct{}

func (memRegistry) name(repo string) string { return repo[strings.LastIndex(repo, "/")+1:] }

func (r memRegistry) Versions(_ context.Context, repo string) ([]*semver.Version, error) {
	return []*semver.Version{semver.MustParse("1.0.0"), semver.MustParse("1.1.0")}, nil
}

func (r memRegistry) Describe(_ context.Context, repo, version string) (*manager.Release, error) {
	n := r.name(repo)
	return &manager.Release{Repository: repo, Name: n, Version: version, Manifest: fakeDigest(n + version), Content: fakeDigest(n + version + "layer")}, nil
}

func (r memRegistry) Manifest(ctx context.Context, repo, d string) (*manager.Release, error) {
	for _, v := range []string{"1.0.0", "1.1.0"} {
		if fakeDigest(r.name(repo)+v) == d {
			return r.Describe(ctx, repo, v)
		}
	}
	return nil, fmt.Errorf("%s@%s: no such manifest", repo, d)
}

func (memRegistry) Materialize(_ context.Context, s lockfile.Skill, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+s.Name+"\ndescription: Does "+s.Name+".\nversion: "+s.Version+"\n---\n"), 0o644)
}

func fakeDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// setup makes a project for claude-code and codex with pdf and slug
// installed, and returns its manager.
func setup(t *testing.T) *manager.Manager {
	t.Helper()
	dir := t.TempDir()
	yaml := "registry: oci:./registry\nagents: [claude-code, codex]\nskills:\n  pdf: 1.0.0\n  slug: 1.0.0\n"
	if err := os.WriteFile(filepath.Join(dir, project.FileName), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := &manager.Manager{Scope: project.Scope{Project: p}, Registry: memRegistry{}}
	if _, err := m.Install(context.Background(), manager.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	return m
}

func check(t *testing.T, m *manager.Manager, agents ...string) *Report {
	t.Helper()
	r, err := Check(context.Background(), m, Options{Agents: agents, Detect: func(agent.Program) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// find returns the one finding of kind about skill, failing the test
// when there is not exactly one.
func find(t *testing.T, r *Report, kind Kind, skill string) Finding {
	t.Helper()
	var got []Finding
	for _, f := range r.Findings {
		if f.Kind == kind && f.Skill == skill {
			got = append(got, f)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d %s findings about %s; want 1; all: %v", len(got), kind, skill, r.Findings)
	}
	f := got[0]
	if f.Message == "" || f.Fix == "" {
		t.Errorf("finding %v lacks a message or a fix", f)
	}
	return f
}

func TestClean(t *testing.T) {
	m := setup(t)
	r := check(t, m)
	if !r.OK() {
		t.Fatalf("fresh install: findings %v; want none", r.Findings)
	}
	ids := []string{}
	for _, a := range r.Agents {
		ids = append(ids, a.ID)
		if a.Why != "skills.yaml" || len(a.Sees) != 2 || len(a.Missing) != 0 || !a.OK {
			t.Errorf("agent %s: %+v; want it to see pdf and slug", a.ID, a)
		}
	}
	if !slices.Equal(ids, []string{"claude-code", "codex"}) {
		t.Errorf("agents checked %q; want skills.yaml's claude-code, codex", ids)
	}
}

func TestDefaultAgentsReadTargets(t *testing.T) {
	m := setup(t)
	m.Project.Agents = nil // targets default: every agent reading them
	r := check(t, m)
	for _, a := range r.Agents {
		if a.Why != "reads a target" {
			t.Errorf("agent %s checked because %q; want \"reads a target\"", a.ID, a.Why)
		}
		if a.ID == "windsurf" {
			t.Error("windsurf reads no default target but was checked")
		}
	}
	if len(r.Agents) != len(agent.Programs)-1 {
		t.Errorf("%d agents checked; want every agent but windsurf", len(r.Agents))
	}
}

func TestShadowed(t *testing.T) {
	m := setup(t)
	write(t, filepath.Join(m.Project.Dir(), ".gemini/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Mine.\n---\n")
	r := check(t, m, "gemini-cli", "codex")
	f := find(t, r, KindShadowed, "pdf")
	if !slices.Equal(f.Agents, []string{"gemini-cli"}) || f.Folder != ".gemini/skills" || !strings.Contains(f.Message, ".agents/skills") {
		t.Errorf("shadowed finding %+v; want gemini-cli, .gemini/skills, naming the hidden .agents/skills", f)
	}
	for _, a := range r.Agents {
		if a.ID == "codex" && !a.OK {
			t.Errorf("codex does not read .gemini/skills but is not OK: %+v", a)
		}
	}
}

func TestNotVisible(t *testing.T) {
	m := setup(t)
	r := check(t, m, "windsurf")
	f := find(t, r, KindNotVisible, "pdf")
	if !strings.Contains(f.Message, "installed only in .claude/skills, .agents/skills") || !strings.Contains(f.Fix, "agents:") {
		t.Errorf("not-visible finding %+v", f)
	}
}

func TestBrokenLinkFixed(t *testing.T) {
	m := setup(t)
	link := filepath.Join(m.Project.Dir(), ".agents/skills/ghost")
	if err := os.Symlink("../../nowhere", link); err != nil {
		t.Fatal(err)
	}
	r := check(t, m)
	f := find(t, r, KindBrokenLink, "ghost")
	if f.Repair != RepairUnlink || !slices.Equal(f.Agents, []string{"codex"}) {
		t.Errorf("broken-link finding %+v", f)
	}
	acts, err := Fix(context.Background(), m, r, FixOptions{})
	if err != nil || len(acts) != 1 || acts[0].Failed {
		t.Fatalf("Fix = %+v, %v", acts, err)
	}
	if _, err := os.Lstat(link); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link is still there (%v)", err)
	}
	if r := check(t, m); !r.OK() {
		t.Errorf("after Fix: %v", r.Findings)
	}
}

func TestEscapingLink(t *testing.T) {
	m := setup(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "far/SKILL.md"), "---\nname: far\ndescription: Far.\n---\n")
	if err := os.Symlink(filepath.Join(outside, "far"), filepath.Join(m.Project.Dir(), ".claude/skills/far")); err != nil {
		t.Fatal(err)
	}
	r := check(t, m)
	if f := find(t, r, KindEscapingLink, "far"); f.Repair != "" {
		t.Errorf("an escaping link is not Fix's to remove: %+v", f)
	}
}

func TestInvalidAndMisnamed(t *testing.T) {
	m := setup(t)
	dir := m.Project.Dir()
	write(t, filepath.Join(dir, ".claude/skills/bad/SKILL.md"), "no frontmatter\n")
	write(t, filepath.Join(dir, ".claude/skills/nodesc/SKILL.md"), "---\nname: nodesc\n---\n")
	write(t, filepath.Join(dir, ".agents/skills/other/SKILL.md"), "---\nname: renamed\ndescription: X.\n---\n")
	r := check(t, m)
	find(t, r, KindInvalid, "bad")
	if f := find(t, r, KindInvalid, "nodesc"); !strings.Contains(f.Message, "description") {
		t.Errorf("invalid-skill finding %+v; want it to name the description", f)
	}
	if f := find(t, r, KindNameMismatch, "other"); !strings.Contains(f.Fix, `"renamed"`) {
		t.Errorf("name-mismatch finding %+v", f)
	}
	for _, a := range r.Agents {
		for _, s := range a.Sees {
			if s.Skill == "bad" || s.Skill == "other" || s.Skill == "nodesc" {
				t.Errorf("%s is listed as seeing %s, which it would skip", a.ID, s.Skill)
			}
		}
	}
}

func TestModifiedNeedsForce(t *testing.T) {
	m := setup(t)
	p := filepath.Join(m.Project.Dir(), ".claude/skills/slug/SKILL.md")
	write(t, p, "---\nname: slug\ndescription: Edited.\n---\n")
	r := check(t, m)
	if f := find(t, r, KindModified, "slug"); f.Repair != RepairReinstallForce || !slices.Equal(f.Agents, []string{"claude-code"}) {
		t.Errorf("modified finding %+v", f)
	}
	acts, err := Fix(context.Background(), m, r, FixOptions{})
	if err != nil || len(acts) != 1 || !acts[0].Failed {
		t.Fatalf("Fix without force = %+v, %v; want it to leave the edit", acts, err)
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "Edited.") {
		t.Error("Fix without Force discarded a local edit")
	}
	if _, err := Fix(context.Background(), m, r, FixOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if r := check(t, m); !r.OK() {
		t.Errorf("after Fix --force: %v", r.Findings)
	}
}

func TestStaleRecordAndNotInstalledFixed(t *testing.T) {
	m := setup(t)
	dir := m.Project.Dir()
	if err := os.RemoveAll(filepath.Join(dir, ".agents/skills/pdf")); err != nil {
		t.Fatal(err)
	}
	// A hand edit left the record in .claude/skills without its slug.
	write(t, filepath.Join(dir, ".claude/skills/pdf/SKILL.md"), "---\nname: pdf\ndescription: Edited.\n---\n")
	r := check(t, m, "codex")
	if f := find(t, r, KindStaleRecord, "pdf"); f.Repair != RepairReinstall || f.Folder != ".agents/skills" {
		t.Errorf("stale-record finding %+v", f)
	}
	acts, err := Fix(context.Background(), m, r, FixOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// .claude/skills has a local edit: that target is left whole, the
	// other reinstalled.
	var did []string
	for _, a := range acts {
		did = append(did, a.Message)
	}
	if !slices.ContainsFunc(did, func(s string) bool { return strings.Contains(s, "installed pdf 1.0.0 in .agents/skills") }) {
		t.Errorf("Fix did %q; want pdf reinstalled in .agents/skills", did)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".claude/skills/pdf/SKILL.md")); !strings.Contains(string(b), "Edited.") {
		t.Error("Fix touched the target with a local edit")
	}
}

func TestOutdatedAndExtra(t *testing.T) {
	m := setup(t)
	// skills.yaml and the lock move on (pdf 1.1.0, slug gone) while the
	// folders stay: what 'git pull' does to a teammate.
	yaml := "registry: oci:./registry\nagents: [claude-code, codex]\nskills:\n  pdf: 1.1.0\n"
	write(t, m.Project.Path(), yaml)
	p, err := project.Load(m.Project.Dir())
	if err != nil {
		t.Fatal(err)
	}
	m.Project = p
	lock, _, err := m.Resolve(context.Background(), manager.ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := lockfile.Write(m.LockPath(), lock); err != nil {
		t.Fatal(err)
	}
	r := check(t, m)
	for _, f := range r.Findings {
		if f.Skill == "pdf" && (f.Kind != KindOutdated || f.Repair != RepairReinstall) ||
			f.Skill == "slug" && (f.Kind != KindStaleRecord || !strings.Contains(f.Message, "no longer in skills.lock")) {
			t.Errorf("finding %+v; want pdf outdated and slug no longer locked, in both folders", f)
		}
	}
	if len(r.Findings) != 4 {
		t.Errorf("%d findings; want 4 (two skills, two folders): %v", len(r.Findings), r.Findings)
	}
	if _, err := Fix(context.Background(), m, r, FixOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := check(t, m); !r.OK() {
		t.Errorf("after Fix: %v", r.Findings)
	}
}

func TestLockFindings(t *testing.T) {
	m := setup(t)
	write(t, m.Project.Path(), "registry: oci:./registry\nagents: [claude-code, codex]\nskills:\n  pdf: 1.0.0\n")
	p, _ := project.Load(m.Project.Dir())
	m.Project = p
	r := check(t, m)
	find(t, r, KindLockStale, "")
	// A stale lock is not reinstalled: that needs re-resolving.
	for _, f := range r.Findings {
		if f.Repair == RepairReinstall {
			t.Errorf("finding %+v offers a frozen reinstall of a stale lock", f)
		}
	}

	m = setup(t)
	b, _ := os.ReadFile(m.LockPath())
	write(t, m.LockPath(), strings.Replace(string(b), "version: 1.0.0", "version: 9.9.9", 1))
	find(t, check(t, m), KindLockMismatch, "")

	m = setup(t)
	os.Remove(m.LockPath())
	find(t, check(t, m), KindLockMissing, "")
}

func TestBadRecord(t *testing.T) {
	m := setup(t)
	write(t, filepath.Join(m.Project.Dir(), ".agents/skills/.skillpm-install.json"), "{not json")
	r := check(t, m)
	var got bool
	for _, f := range r.Findings {
		got = got || f.Kind == KindBadRecord && f.Folder == ".agents/skills" && slices.Equal(f.Agents, []string{"codex"})
	}
	if !got {
		t.Errorf("findings %v; want bad-record in .agents/skills for codex", r.Findings)
	}
}

func TestUnlockedHandSkill(t *testing.T) {
	m := setup(t)
	write(t, filepath.Join(m.Project.Dir(), ".claude/skills/mine/SKILL.md"), "---\nname: mine\ndescription: Mine.\n---\n")
	r := check(t, m)
	if f := find(t, r, KindUnlocked, "mine"); f.Repair != "" {
		t.Errorf("unlocked finding %+v: Fix must not touch a hand-made skill", f)
	}
}

func TestUserScope(t *testing.T) {
	home := t.TempDir()
	gdir := t.TempDir()
	write(t, filepath.Join(gdir, project.FileName), "registry: oci:./registry\nagents: [github-copilot]\nskills:\n  pdf: 1.0.0\n")
	p, err := project.Load(gdir)
	if err != nil {
		t.Fatal(err)
	}
	m := &manager.Manager{Scope: project.Scope{Project: p, Owner: "user", Root: home,
		Targets: []string{filepath.Join(home, ".copilot/skills")}}, Registry: memRegistry{}}
	if _, err := m.Install(context.Background(), manager.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := Check(context.Background(), m, Options{User: true, Detect: func(agent.Program) bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	if !r.OK() || r.Scope != "user" || len(r.Agents) != 1 || r.Agents[0].Folders[0] != "~/.copilot/skills" {
		t.Errorf("user scope report %+v", r)
	}
}

// A folder skills.yaml no longer installs into keeps what skillpm put
// there: an agent that still reads it sees stale copies.
func TestStaleRecordOutsideTargets(t *testing.T) {
	m := setup(t)
	write(t, m.Project.Path(), "registry: oci:./registry\nagents: [claude-code]\nskills:\n  pdf: 1.1.0\n")
	p, err := project.Load(m.Project.Dir())
	if err != nil {
		t.Fatal(err)
	}
	m.Project = p
	if _, err := m.Install(context.Background(), manager.InstallOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := check(t, m, "claude-code"); !r.OK() {
		t.Fatalf("claude-code after the install: %v", r.Findings)
	}
	r := check(t, m, "codex")
	pdf := find(t, r, KindStaleRecord, "pdf")
	slug := find(t, r, KindStaleRecord, "slug")
	if pdf.Folder != ".agents/skills" || !strings.Contains(pdf.Message, "the lock wants 1.1.0") || pdf.Repair != "" {
		t.Errorf("pdf finding %+v", pdf)
	}
	if !strings.Contains(slug.Message, "no longer installs into") {
		t.Errorf("slug finding %+v", slug)
	}
}

// An agent added to skills.yaml before 'skillpm install' ran: its folder
// lacks the locked skills, and Fix installs them there.
func TestNotInstalledFixed(t *testing.T) {
	m := setup(t)
	b, _ := os.ReadFile(m.Project.Path())
	write(t, m.Project.Path(), strings.Replace(string(b), "codex]", "codex, windsurf]", 1))
	p, err := project.Load(m.Project.Dir())
	if err != nil {
		t.Fatal(err)
	}
	m.Project = p
	r := check(t, m, "windsurf")
	f := find(t, r, KindNotInstalled, "pdf")
	if f.Repair != RepairReinstall || !slices.Equal(f.Agents, []string{"windsurf"}) || f.Folder != ".windsurf/skills" {
		t.Errorf("not-installed finding %+v", f)
	}
	for _, f := range r.Findings {
		if f.Kind == KindNotVisible {
			t.Errorf("not-visible %+v beside not-installed: one finding per cause", f)
		}
	}
	if _, err := Fix(context.Background(), m, r, FixOptions{}); err != nil {
		t.Fatal(err)
	}
	if r := check(t, m, "windsurf"); !r.OK() {
		t.Errorf("after Fix: %v", r.Findings)
	}
}
