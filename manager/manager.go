// Package manager ties a project together: it resolves skills.yaml into
// skills.lock through a registry, and installs the lock into the project's
// target folders. Like Helm's downloader.Manager, resolving returns a lock
// and downloads no content; installing reads only the lock. The project
// commands are its workflows (workflow.go): Install (Helm's Build), Add,
// Remove and Update, each over an options struct, returning a Result;
// Verify checks a lock as 'skillpm verify' does.
package manager

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source"
	"golang.org/x/sync/errgroup"
)

// Release is one published version of a skill, as resolution and locking
// need it. It comes from a tag and the small config blob, never the
// content.
type Release struct {
	Repository string
	// Name is the skill's name as its config states it ("" when the
	// artifact states none).
	Name     string
	Version  string
	Manifest string // manifest digest
	Content  string // content layer digest
	// DependsOn are the depends_on entries, "name@constraint".
	DependsOn []string
	// Source is the pin of a skill packed from a source other than a
	// registry (Manager.Sources); nil for OCI.
	Source *lockfile.Source `json:",omitempty"`
}

// Registry is what a project needs from registries. Implementations add
// caching; the manager adds parallelism.
type Registry interface {
	// Versions lists the semver versions published in repo. A repository
	// that does not exist returns an error wrapping resolve.ErrNotFound.
	Versions(ctx context.Context, repo string) ([]*semver.Version, error)
	// Describe returns one version's release metadata.
	Describe(ctx context.Context, repo, version string) (*Release, error)
	// Manifest reads the manifest digest of repo, by digest (its bytes
	// are checked against it), and returns what its config states:
	// name, version, content layer and depends_on. CheckLock compares
	// a locked entry with it.
	Manifest(ctx context.Context, repo, digest string) (*Release, error)
	// Materialize writes a locked skill's verified files into dir.
	Materialize(ctx context.Context, s lockfile.Skill, dir string) error
}

// ErrStaleLock is returned by Frozen when skills.lock is missing or was
// resolved from other skills.yaml inputs.
var ErrStaleLock = errors.New("skills.lock is missing or out of date")

// ErrNoRegistry is returned when a skill has no registry to resolve from.
var ErrNoRegistry = errors.New("no registry")

// Manager works on one project.
type Manager struct {
	// Scope is the project, its targets and their owner and bounds, and
	// the cache folders of its lock and records (project.Scope: what
	// needs no registry).
	project.Scope
	Registry Registry
	// Log receives progress lines; nil discards.
	Log io.Writer
	// DefaultRegistry is the registry prefix for skills when skills.yaml
	// names none (the CLI takes it from SKILLPM_REGISTRY).
	DefaultRegistry string
	// AfterSwap is passed to install.Options (a test hook); nil does
	// nothing.
	AfterSwap func(n int)
	// Trust, when set, checks every locked skill before Install touches
	// a target; nil installs without signature checks.
	Trust Trust
	// Sources are the kinds of source skills.yaml may name besides
	// registries, by kind ("git", "local", "wellknown"; project.Kind*).
	// A kind with none here fails with ErrNoSource.
	Sources map[string]source.Source
	// Store packs sourced skills into the cache; required when
	// skills.yaml names any.
	Store *source.Store
	// PinnedFromRegistry reads sourced skills, like the others, from
	// Registry by their locked digests and never from their sources: an
	// install from a bundle, which holds them all.
	PinnedFromRegistry bool
	// CheckedDir, when set, is a folder of the user's cache where
	// install remembers which lock entries it has checked against the
	// manifests they pin (checked.go), so that a warm run does not read
	// them again; "" checks every entry every run.
	CheckedDir string

	packed sync.Map // lock entry -> *source.Packed, checked once per run
}

// Trust checks a locked skill against a trust policy.
type Trust interface {
	// Check verifies the skill's manifest (in repo, the lock's
	// repository made absolute) and returns the verified signer
	// identity, "" when the policy asks for none. An error denies the
	// whole install.
	Check(ctx context.Context, s lockfile.Skill, repo string) (signer string, err error)
}

// Repository returns the repository a skill resolves from, as the lock
// records it: its registry prefix, as written in skills.yaml, joined with
// its name. Registry calls take it through Project.Abs.
func (m *Manager) Repository(name string) (string, error) {
	if e, ok := m.Entry(name); ok {
		return e.Repository, nil
	}
	r := m.Project.RegistryFor(name)
	if r == "" {
		r = m.DefaultRegistry
	}
	if r == "" {
		return "", fmt.Errorf("%w for %s: set 'registry:' in %s (for example oci:./registry or ghcr.io/acme/skills), or SKILLPM_REGISTRY", ErrNoRegistry, name, m.Project.Path())
	}
	return strings.TrimRight(r, "/") + "/" + name, nil
}

// ResolveOptions tune Resolve.
type ResolveOptions struct {
	// Previous is the lock to stay close to: its versions are kept while
	// they satisfy. Nil resolves from scratch.
	Previous *lockfile.File
	// Upgrade names skills to move to their highest acceptable version.
	Upgrade []string
	// UpgradeAll ignores Previous.
	UpgradeAll bool
}

// Resolve computes the lock for the project's wants. It fetches metadata
// only (tags and config blobs), never content.
func (m *Manager) Resolve(ctx context.Context, opts ResolveOptions) (*lockfile.File, *resolve.Solution, error) {
	ctx, cancel := context.WithCancel(ctx) // ends prefetches with the call
	defer cancel()
	var wants []resolve.Dependency
	for _, name := range m.Project.Names() {
		d, err := resolve.NewDependency(name, m.Project.Skills[name].Constraint)
		if err != nil {
			return nil, nil, err
		}
		wants = append(wants, d)
	}
	src := &resolverSource{m: m, releases: map[string]*Release{}, versions: map[string][]*semver.Version{}}
	// No prefetch outlives the call: cancelled, then waited for.
	defer func() { cancel(); src.prefetches.Wait() }()
	upgrade := map[string]bool{}
	for _, n := range opts.Upgrade {
		upgrade[n] = true
	}
	src.sourced = &sourced{m: m, previous: opts.Previous, cands: map[string][]source.Candidate{},
		upgrade: func(n string) bool { return opts.UpgradeAll || upgrade[n] }}
	ro := resolve.Options{Upgrade: opts.Upgrade, UpgradeAll: opts.UpgradeAll, Prereleases: m.Project.Prereleases}
	if opts.Previous != nil {
		ro.Locked = map[string]*semver.Version{}
		for _, s := range opts.Previous.Skills {
			if v, err := semver.NewVersion(s.Version); err == nil {
				ro.Locked[s.Name] = v
			}
		}
	}
	src.prefetchSourced(ctx)
	sol, err := resolve.Resolve(ctx, wants, src, ro)
	if err != nil {
		return nil, nil, err
	}
	lock := &lockfile.File{Inputs: m.Project.InputsDigest()}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	entries := make([]lockfile.Skill, len(sol.Skills))
	for i, s := range sol.Skills {
		g.Go(func() error {
			rel, err := src.describe(gctx, s.Name, s.Version.Original())
			if err != nil {
				return err
			}
			repo, err := m.Repository(s.Name)
			if err != nil {
				return err
			}
			e := lockfile.Skill{Name: s.Name, Version: rel.Version, Repository: repo, Manifest: rel.Manifest, Content: rel.Content, Source: rel.Source}
			for _, d := range s.Dependencies {
				e.Dependencies = append(e.Dependencies, d.Name)
			}
			_, e.Requested = m.Project.Skills[s.Name]
			if prev := opts.Previous; prev != nil {
				// A signer is carried over only for the same manifest
				// from the same repository: the previous lock may be
				// stale, and is not checked.
				if p := prev.Find(s.Name); p != nil && p.Manifest == e.Manifest && p.Repository == e.Repository {
					e.Signer = p.Signer
				}
			}
			entries[i] = e
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, nil, err
	}
	lock.Skills = entries
	lock.Normalize()
	return lock, sol, nil
}

// resolverSource adapts the Registry to resolve.Source, memoising answers and
// prefetching likely config blobs in parallel.
type resolverSource struct {
	m        *Manager
	mu       sync.Mutex
	versions map[string][]*semver.Version
	releases map[string]*Release
	inflight sync.Map // key -> chan struct{}
	sourced  *sourced
	// prefetches are the describe calls Versions started on its own.
	prefetches sync.WaitGroup
}

func (s *resolverSource) Versions(ctx context.Context, name string) ([]*semver.Version, error) {
	var vs []*semver.Version
	if e, ok := s.m.Entry(name); ok {
		var err error
		if vs, err = s.sourced.versions(ctx, e); err != nil {
			return nil, err
		}
	} else {
		repo, err := s.m.Repository(name)
		if err != nil {
			return nil, err
		}
		if vs, err = s.m.Registry.Versions(ctx, s.m.Project.Abs(repo)); err != nil {
			return nil, err
		}
	}
	repo, _ := s.m.Repository(name)
	if len(vs) == 0 {
		return nil, fmt.Errorf("%s: no versions published: %w", repo, resolve.ErrNotFound)
	}
	// Prefetch the two highest versions' metadata: they are what the
	// solver asks for next.
	sorted := append([]*semver.Version(nil), vs...)
	sort.Sort(sort.Reverse(semver.Collection(sorted)))
	for _, v := range sorted[:min(2, len(sorted))] {
		s.prefetches.Go(func() { s.describe(ctx, name, v.Original()) })
	}
	return vs, nil
}

func (s *resolverSource) Dependencies(ctx context.Context, name string, v *semver.Version) ([]resolve.Dependency, error) {
	rel, err := s.describe(ctx, name, v.Original())
	if err != nil {
		return nil, err
	}
	var deps []resolve.Dependency
	for _, raw := range rel.DependsOn {
		d, err := skill.ParseDependency(raw)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", name, v.Original(), err)
		}
		c := d.Constraint
		if c == "*" {
			c = ""
		}
		rd, err := resolve.NewDependency(d.Name, c)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", name, v.Original(), err)
		}
		deps = append(deps, rd)
	}
	return deps, nil
}

// describe fetches one release once, however many callers ask.
func (s *resolverSource) describe(ctx context.Context, name, version string) (*Release, error) {
	key := name + "@" + version
	for {
		s.mu.Lock()
		if r, ok := s.releases[key]; ok {
			s.mu.Unlock()
			return r, nil
		}
		s.mu.Unlock()
		ch := make(chan struct{})
		if other, loaded := s.inflight.LoadOrStore(key, ch); loaded {
			select {
			case <-other.(chan struct{}):
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		repo, err := s.m.Repository(name)
		var rel *Release
		if e, ok := s.m.Entry(name); ok {
			rel, err = s.sourced.describe(ctx, e, version)
		} else if err == nil {
			rel, err = s.m.Registry.Describe(ctx, s.m.Project.Abs(repo), version)
		}
		if err == nil {
			s.mu.Lock()
			s.releases[key] = rel
			s.mu.Unlock()
		}
		s.inflight.Delete(key)
		close(ch)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", name, version, err)
		}
		return rel, nil
	}
}

// SyncOptions configure SyncLock. The zero value installs and removes
// what the lock asks, refusing to touch skills with local edits.
type SyncOptions struct {
	// Force replaces or removes managed skills that have local edits.
	Force bool
	// DryRun plans and reports; it changes nothing.
	DryRun bool
}

// SyncLock makes the targets hold exactly lock's skills; it writes
// neither skills.yaml nor the lock (the workflows in workflow.go do, and
// hold the project lock around it). The lock is
// checked against skills.yaml first (CheckLock), then, with Trust set,
// every skill is checked (in parallel) and its verified signer recorded
// in lock, then the manifests the lock pins are compared with it; one
// failure stops the install before any target is touched.
func (m *Manager) SyncLock(ctx context.Context, lock *lockfile.File, opts SyncOptions) (*install.Result, error) {
	if err := m.CheckLockFiles(lock); err != nil {
		return nil, err
	}
	// Trust before the manifests: a policy that fails closed (a vetted
	// mirror, a bundle) decides before anything else is read.
	if err := m.checkTrust(ctx, lock); err != nil {
		return nil, err
	}
	// An entry whose verdict is remembered (checked.go) is not read
	// again; the others are read and checked, and remembered once the
	// whole lock passed.
	memo := m.checkedMemo()
	keys := make([]string, len(lock.Skills))
	skip := make([]bool, len(lock.Skills))
	for i, e := range lock.Skills {
		if memo != nil {
			keys[i] = m.checkedKeyOf(lock, e)
		}
	}
	// One mark stands for every entry of a lock that passed whole.
	whole := ""
	if memo != nil {
		whole = lockCheckedKey(keys)
	}
	wholeOK := memo.has(whole)
	for i := range lock.Skills {
		if keys[i] != "" {
			skip[i] = wholeOK || memo.has(keys[i])
		}
	}
	rels, err := fetchPinned(ctx, m.Project, lock, CheckOptions{DefaultRegistry: m.DefaultRegistry, Manifest: m.pinnedManifest(lock), skip: skip})
	if err != nil {
		return nil, err
	}
	if err := CheckPinned(m.Project, lock, rels); err != nil {
		return nil, err
	}
	all := true
	for i, e := range lock.Skills {
		if keys[i] != "" && !skip[i] {
			if rels[e.Name] != nil {
				memo.put(keys[i])
			} else {
				all = false
			}
		}
	}
	if whole != "" && !wholeOK && all {
		memo.put(whole)
	}
	o := m.TargetOptions()
	o.Source, o.Force, o.DryRun, o.Log = absSource{m}, opts.Force, opts.DryRun, m.Log
	o.AfterSwap = m.AfterSwap
	o.Vet = m.vet() // the trust policy's audit: rules (vet.go)
	return install.Sync(ctx, lock, o)
}

func (m *Manager) checkTrust(ctx context.Context, lock *lockfile.File) error {
	if m.Trust == nil {
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	signers := make([]string, len(lock.Skills))
	for i, s := range lock.Skills {
		g.Go(func() (err error) {
			if lockfile.SourceKind(s.Repository) != "" {
				if st, ok := m.Trust.(SourceTrust); ok {
					return st.CheckSource(s, PolicyName(s.Repository))
				}
				return nil
			}
			signers[i], err = m.Trust.Check(gctx, s, m.Project.Abs(s.Repository))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i := range lock.Skills {
		lock.Skills[i].Signer = signers[i]
	}
	return nil
}

// absSource resolves relative oci: repositories of the lock against the
// project folder before fetching.
type absSource struct{ m *Manager }

func (a absSource) Materialize(ctx context.Context, s lockfile.Skill, dir string) error {
	if lockfile.SourceKind(s.Repository) != "" && !a.m.PinnedFromRegistry {
		p, err := a.m.packedFor(ctx, s)
		if err != nil {
			return err
		}
		s.Repository = p.Layout
		return (&RegistrySource{Client: a.m.Store.Client}).Materialize(ctx, s, dir)
	}
	s.Repository = a.m.Project.Abs(s.Repository)
	return a.m.Registry.Materialize(ctx, s, dir)
}

// Versions lists the published versions of a locked skill, from the
// repository skills.yaml resolves it to (not the one the lock names).
func (m *Manager) Versions(ctx context.Context, s lockfile.Skill) ([]*semver.Version, error) {
	if e, ok := m.Entry(s.Name); ok {
		src := &sourced{m: m, cands: map[string][]source.Candidate{}, upgrade: func(string) bool { return true }}
		return src.versions(ctx, e)
	}
	repo, err := m.Repository(s.Name)
	if err != nil {
		return nil, err
	}
	return m.Registry.Versions(ctx, m.Project.Abs(repo))
}

// SolutionFromLock rebuilds the dependency graph of a lock, offline, for
// 'why'.
func SolutionFromLock(p *project.Manifest, lock *lockfile.File) *resolve.Solution {
	sol := &resolve.Solution{}
	for _, n := range p.Names() {
		sol.Wants = append(sol.Wants, resolve.Dependency{Name: n, Raw: p.Skills[n].Constraint})
	}
	for _, s := range lock.Skills {
		v, err := semver.NewVersion(s.Version)
		if err != nil {
			continue
		}
		k := resolve.Skill{Name: s.Name, Version: v}
		for _, d := range s.Dependencies {
			k.Dependencies = append(k.Dependencies, resolve.Dependency{Name: d})
		}
		sol.Skills = append(sol.Skills, k)
	}
	return sol
}
