package manager

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/resolve"
)

// memRegistry is an in-memory Registry: repo -> version -> depends_on.
type memRegistry struct {
	skills    map[string]map[string][]string
	describes atomic.Int32
}

func (r *memRegistry) name(repo string) string { return repo[strings.LastIndex(repo, "/")+1:] }

func (r *memRegistry) Versions(_ context.Context, repo string) ([]*semver.Version, error) {
	vs, ok := r.skills[r.name(repo)]
	if !ok {
		return nil, fmt.Errorf("%s: %w", repo, resolve.ErrNotFound)
	}
	var out []*semver.Version
	for v := range vs {
		out = append(out, semver.MustParse(v))
	}
	return out, nil
}

func (r *memRegistry) Describe(_ context.Context, repo, version string) (*Release, error) {
	r.describes.Add(1)
	deps, ok := r.skills[r.name(repo)][version]
	if !ok {
		return nil, errors.New("no such version")
	}
	d := fakeDigest(r.name(repo) + "-" + version)
	return &Release{Repository: repo, Name: r.name(repo), Version: version, Manifest: d, Content: fakeDigest(r.name(repo) + "-" + version + "-layer"), DependsOn: deps}, nil
}

// Manifest finds the release whose fake digest is d.
func (r *memRegistry) Manifest(ctx context.Context, repo, d string) (*Release, error) {
	for v := range r.skills[r.name(repo)] {
		if fakeDigest(r.name(repo)+"-"+v) == d {
			return r.Describe(ctx, repo, v)
		}
	}
	return nil, fmt.Errorf("%s@%s: no such manifest", repo, d)
}

// fakeDigest is a well-formed sha256 digest made from s.
func fakeDigest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (r *memRegistry) Materialize(_ context.Context, s lockfile.Skill, dir string) error {
	os.MkdirAll(dir, 0o755)
	return os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+s.Name+"\ndescription: x\nversion: "+s.Version+"\n---\n"), 0o644)
}

func newManager(t *testing.T, yaml string) (*Manager, *memRegistry) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, project.FileName), []byte(yaml), 0o644)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	reg := &memRegistry{skills: map[string]map[string][]string{
		"notes":  {"1.0.0": {"slug@^1"}, "1.1.0": {"slug@^1.1", "stats"}, "2.0.0-beta.1": nil},
		"slug":   {"1.0.0": nil, "1.1.0": nil, "1.2.0": nil},
		"stats":  {"0.9.0": nil, "1.0.0": nil},
		"legacy": {"1.0.0": {"slug@^2"}},
	}}
	return &Manager{Scope: project.Scope{Project: p}, Registry: reg}, reg
}

func versions(l *lockfile.File) string {
	var s []string
	for _, e := range l.Skills {
		s = append(s, e.Name+"@"+e.Version)
	}
	return strings.Join(s, " ")
}

func TestResolveAndInstall(t *testing.T) {
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
	lock, _, err := m.Resolve(context.Background(), ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := versions(lock), "notes@1.1.0 slug@1.2.0 stats@1.0.0"; got != want {
		t.Errorf("resolved %s; want %s", got, want)
	}
	if e := lock.Find("notes"); !e.Requested || e.Manifest != fakeDigest("notes-1.1.0") || strings.Join(e.Dependencies, ",") != "slug,stats" {
		t.Errorf("notes entry = %+v", e)
	}
	if e := lock.Find("slug"); e.Requested || e.Repository != "oci:./registry/slug" {
		t.Errorf("slug entry = %+v", e)
	}
	if !m.Fresh(lock) {
		t.Error("fresh lock reported stale")
	}
	res, err := m.SyncLock(context.Background(), lock, SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(res.Changes), 6; got != want {
		t.Errorf("changes = %d; want %d (3 skills x 2 default targets)", got, want)
	}
	if _, err := os.Stat(filepath.Join(m.Project.Dir(), ".agents/skills/stats/SKILL.md")); err != nil {
		t.Error(err)
	}
}

func TestAddKeepsLockedVersions(t *testing.T) {
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
	prev := &lockfile.File{Skills: []lockfile.Skill{
		{Name: "notes", Version: "1.0.0"}, {Name: "slug", Version: "1.0.0"},
	}}
	m.Project.Set("stats", "*")
	if m.Fresh(prev) {
		t.Error("a lock from other inputs reported fresh")
	}
	lock, _, err := m.Resolve(context.Background(), ResolveOptions{Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := versions(lock), "notes@1.0.0 slug@1.0.0 stats@1.0.0"; got != want {
		t.Errorf("resolved %s; want %s", got, want)
	}
	lock, _, err = m.Resolve(context.Background(), ResolveOptions{Previous: prev, Upgrade: []string{"slug"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := versions(lock), "notes@1.0.0 slug@1.2.0 stats@1.0.0"; got != want {
		t.Errorf("upgrade slug: resolved %s; want %s", got, want)
	}
}

func TestResolveExplainsConflicts(t *testing.T) {
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n  legacy: '*'\n")
	_, _, err := m.Resolve(context.Background(), ResolveOptions{})
	var nse *resolve.NoSolutionError
	if !errors.As(err, &nse) {
		t.Fatalf("err = %v; want a NoSolutionError", err)
	}
	for _, want := range []string{"legacy", "slug"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("explanation lacks %q:\n%v", want, err)
		}
	}
	m2, _ := newManager(t, "registry: oci:./registry\nskills:\n  nope: '*'\n")
	if _, _, err := m2.Resolve(context.Background(), ResolveOptions{}); !errors.Is(err, resolve.ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown skill: err = %v; want ErrNotFound naming it", err)
	}
}

func TestWhyFromLock(t *testing.T) {
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  notes: ^1.0\n")
	lock, _, err := m.Resolve(context.Background(), ResolveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paths := SolutionFromLock(m.Project, lock).Why("slug")
	if len(paths) != 1 || strings.Join(paths[0], ">") != "notes>slug" {
		t.Errorf("Why(slug) = %v; want [[notes slug]]", paths)
	}
}
