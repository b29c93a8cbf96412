package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source/git"
)

// ErrLockMismatch is wrapped by every *LockError: skills.lock does not
// agree with skills.yaml, or with the manifests it pins. skills.lock is
// written only by skillpm, so a mismatch means someone edited it.
var ErrLockMismatch = errors.New("skills.lock does not agree with skills.yaml")

// LockProblem is one way a lock disagrees with skills.yaml or with the
// manifests it pins.
type LockProblem struct {
	// Skill names the lock entry (or the wanted skill that has no
	// entry).
	Skill string `json:"skill"`
	// Reason is one line for humans.
	Reason string `json:"reason"`
}

// LockError is a lock that must not be acted on. Like Cargo's source
// checks and npm's lockfile-lint, skillpm trusts nothing a lock claims
// beyond what skills.yaml and the digest-pinned manifests confirm.
type LockError struct {
	// Problems are sorted by skill.
	Problems []LockProblem
}

func (e *LockError) Error() string {
	var b strings.Builder
	b.WriteString("skills.lock does not agree with skills.yaml: ")
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Skill + ": " + p.Reason)
	}
	b.WriteString(" (was skills.lock edited? re-resolve it from skills.yaml: rm skills.lock && skillpm install, then review the diff)")
	return b.String()
}

// Unwrap makes errors.Is(err, ErrLockMismatch) true.
func (e *LockError) Unwrap() error { return ErrLockMismatch }

// CheckOptions tune CheckLock.
type CheckOptions struct {
	// DefaultRegistry is the registry prefix of skills skills.yaml gives
	// none (Manager.DefaultRegistry).
	DefaultRegistry string
	// Manifest, when set, reads the manifest an entry pins, by digest
	// (so its bytes are checked against it), from repo, the repository
	// skills.yaml resolves the entry to, as Project.Abs makes it. Its
	// config is then compared with the entry (see CheckPinned). Nil
	// checks the two files only.
	Manifest func(ctx context.Context, repo, digest string) (*Release, error)

	// skip, when set, names the entries whose manifests are not read
	// (their verdict is remembered, checked.go); they get no release.
	skip []bool
}

// CheckLock checks lock against the project's skills.yaml before anything
// acts on it:
//
//   - the lock is well formed (lockfile.File.Validate) and was resolved
//     from this skills.yaml (its inputs digest; else ErrStaleLock);
//   - every skill skills.yaml asks for has an entry, marked requested,
//     whose version satisfies skills.yaml's constraint, and no other
//     entry is marked requested;
//   - every entry's repository is the one skills.yaml and the registry
//     settings resolve its name to, so the trust policy is applied to
//     that repository and never to a repository the lock names;
//   - every entry is reachable from a requested one along the lock's
//     dependency edges;
//   - with opts.Manifest, the edges and versions are those of the
//     manifests' configs (CheckPinned): an entry smuggled in as another's
//     dependency is found, since no honest manifest depends on it.
//
// A lock that fails is a *LockError naming every bad entry.
func CheckLock(ctx context.Context, p *project.Manifest, lock *lockfile.File, opts CheckOptions) error {
	if err := checkFiles(p, lock, opts.DefaultRegistry); err != nil {
		return err
	}
	if opts.Manifest == nil {
		return nil
	}
	rels, err := fetchPinned(ctx, p, lock, opts)
	if err != nil {
		return err
	}
	return CheckPinned(p, lock, rels)
}

// expectedRepository is the repository a resolve of skills.yaml writes
// for name (Manager.Repository).
func expectedRepository(p *project.Manifest, defaultRegistry, name string) (string, error) {
	m := Manager{Scope: project.Scope{Project: p}, DefaultRegistry: defaultRegistry}
	return m.Repository(name)
}

// checkFiles is the part of CheckLock that needs only the two files.
func checkFiles(p *project.Manifest, lock *lockfile.File, defaultRegistry string) error {
	if err := lock.Validate(); err != nil {
		return err
	}
	if lock.Inputs != p.InputsDigest() {
		return fmt.Errorf("%w: skills.lock was resolved from another skills.yaml (run 'skillpm install' and commit skills.lock)", ErrStaleLock)
	}
	var probs []LockProblem
	add := func(name, format string, args ...any) {
		probs = append(probs, LockProblem{Skill: name, Reason: fmt.Sprintf(format, args...)})
	}
	parsed := map[string]resolve.Dependency{} // by constraint: many skills share one
	for _, name := range p.Names() {
		e := lock.Find(name)
		if e == nil {
			add(name, "skills.yaml asks for it, but the lock has no entry")
			continue
		}
		raw := p.Skills[name].Constraint
		want, ok := parsed[raw]
		if !ok {
			var err error
			if want, err = resolve.NewDependency(name, raw); err != nil {
				return err
			}
			parsed[raw] = want
		}
		want.Name = name
		if v, err := semver.StrictNewVersion(e.Version); err == nil && !want.Allows(v, p.Prereleases) {
			add(name, "version %s does not satisfy skills.yaml's constraint %q", e.Version, p.Skills[name].Constraint)
		}
	}
	for _, e := range lock.Skills {
		_, wanted := p.Skills[e.Name]
		if e.Requested != wanted {
			if wanted {
				add(e.Name, "skills.yaml asks for it, but the lock does not mark it requested")
			} else {
				add(e.Name, "marked requested, but skills.yaml does not ask for it")
			}
		}
		repo, err := expectedRepository(p, defaultRegistry, e.Name)
		if err != nil {
			return err
		}
		if e.Repository != repo {
			add(e.Name, "repository is %s, but skills.yaml resolves %s to %s", e.Repository, e.Name, repo)
		} else if reason := pinDisagrees(p, e); reason != "" {
			add(e.Name, "%s", reason)
		}
	}
	reached := map[string]bool{}
	var walk func(name string)
	walk = func(name string) {
		if reached[name] {
			return
		}
		reached[name] = true
		if e := lock.Find(name); e != nil {
			for _, d := range e.Dependencies {
				walk(d)
			}
		}
	}
	for _, name := range p.Names() {
		walk(name)
	}
	for _, e := range lock.Skills {
		if !reached[e.Name] {
			add(e.Name, "nothing in skills.yaml needs it: it is not requested and no requested skill depends on it")
		}
	}
	return lockError(probs)
}

func lockError(probs []LockProblem) error {
	if len(probs) == 0 {
		return nil
	}
	slices.SortStableFunc(probs, func(a, b LockProblem) int { return strings.Compare(a.Skill, b.Skill) })
	return &LockError{Problems: probs}
}

// fetchPinned reads the manifest of every entry, in parallel, from the
// repository skills.yaml resolves it to.
func fetchPinned(ctx context.Context, p *project.Manifest, lock *lockfile.File, opts CheckOptions) (map[string]*Release, error) {
	rels := make([]*Release, len(lock.Skills))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, e := range lock.Skills {
		if i < len(opts.skip) && opts.skip[i] {
			continue
		}
		g.Go(func() error {
			repo, err := expectedRepository(p, opts.DefaultRegistry, e.Name)
			if err != nil {
				return err
			}
			rel, err := opts.Manifest(gctx, p.Abs(repo), e.Manifest)
			if err != nil {
				return fmt.Errorf("%s %s: read the locked manifest %s: %w", e.Name, e.Version, e.Manifest, err)
			}
			rels[i] = rel
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := make(map[string]*Release, len(rels))
	for i, e := range lock.Skills {
		if rels[i] != nil {
			out[e.Name] = rels[i]
		}
	}
	return out, nil
}

// CheckPinned compares every entry of lock with the release read from the
// manifest it pins (rels, by entry name; an entry with no release is not
// checked, for a caller that has reported why it could not be read). The
// manifest must hold the entry's skill and version and its content layer;
// the entry's dependencies must be exactly the names of the manifest's
// depends_on, and every locked version must satisfy the depends_on
// constraint that brings it in. A lock that fails is a *LockError.
func CheckPinned(p *project.Manifest, lock *lockfile.File, rels map[string]*Release) error {
	var probs []LockProblem
	add := func(name, format string, args ...any) {
		probs = append(probs, LockProblem{Skill: name, Reason: fmt.Sprintf(format, args...)})
	}
	for _, e := range lock.Skills {
		rel := rels[e.Name]
		if rel == nil {
			continue
		}
		if rel.Name != "" && rel.Name != e.Name {
			add(e.Name, "the locked manifest %s holds the skill %q", e.Manifest, rel.Name)
		}
		// A manifest that states no version (a foreign artifact with
		// neither config nor annotation) cannot be checked here; its
		// digest is still pinned and the trust policy still applies.
		if rel.Version != "" && !sameVersion(rel.Version, e.Version) {
			add(e.Name, "the locked manifest %s is version %s, not %s", e.Manifest, rel.Version, e.Version)
		}
		if rel.Content != e.Content {
			add(e.Name, "the locked manifest %s has the content layer %s, not the locked %s", e.Manifest, orNone(rel.Content), orNone(e.Content))
		}
		deps := map[string]bool{}
		for _, raw := range rel.DependsOn {
			d, err := skill.ParseDependency(raw)
			if err != nil {
				add(e.Name, "its manifest's depends_on %q: %v", raw, err)
				continue
			}
			deps[d.Name] = true
			c := d.Constraint
			if c == "*" {
				c = ""
			}
			rd, err := resolve.NewDependency(d.Name, c)
			if err != nil {
				add(e.Name, "its manifest's depends_on %q: %v", raw, err)
				continue
			}
			dep := lock.Find(d.Name)
			if dep == nil {
				add(e.Name, "its manifest depends on %s, which the lock has no entry for", d.Name)
				continue
			}
			if v, err := semver.StrictNewVersion(dep.Version); err == nil && !rd.Allows(v, p.Prereleases) {
				add(d.Name, "version %s does not satisfy %s %s's depends_on %q", dep.Version, e.Name, e.Version, raw)
			}
		}
		for _, d := range e.Dependencies {
			if !deps[d] {
				add(e.Name, "the lock lists %s as its dependency, but its manifest %s does not depend on it", d, e.Manifest)
			}
		}
		for d := range deps {
			if !slices.Contains(e.Dependencies, d) {
				add(e.Name, "its manifest depends on %s, but the lock does not list it", d)
			}
		}
	}
	return lockError(probs)
}

// sameVersion compares two versions as semver, build metadata included
// (a tag turns "+" into "_", the config keeps "+").
func sameVersion(a, b string) bool {
	if a == b {
		return true
	}
	va, err1 := semver.NewVersion(a)
	vb, err2 := semver.NewVersion(b)
	return err1 == nil && err2 == nil && va.Equal(vb) && va.Metadata() == vb.Metadata()
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// CheckLock checks lock against the project (CheckLock), reading every
// pinned manifest through the registry.
func (m *Manager) CheckLock(ctx context.Context, lock *lockfile.File) error {
	return CheckLock(ctx, m.Project, lock, CheckOptions{DefaultRegistry: m.DefaultRegistry, Manifest: m.pinnedManifest(lock)})
}

// CheckLockFiles checks lock against skills.yaml only, with no network:
// for a previous lock that add, remove and update start from.
func (m *Manager) CheckLockFiles(lock *lockfile.File) error {
	return checkFiles(m.Project, lock, m.DefaultRegistry)
}

// pinDisagrees says how a git entry's pin disagrees with what skills.yaml
// asks of it, "" when it agrees: a commit asked for is the one pinned; a
// ref asked for is the tag or branch the commit came from; a version
// constraint is met by a tag.
func pinDisagrees(p *project.Manifest, e lockfile.Skill) string {
	w, ok := p.Skills[e.Name]
	if !ok || w.Kind() != project.KindGit || e.Source == nil {
		return ""
	}
	pin := e.Source
	switch {
	case git.IsCommit(w.Ref):
		if pin.Commit != w.Ref || pin.Ref != "" {
			return fmt.Sprintf("skills.yaml pins commit %s, but the lock has %s", w.Ref, pinText(*pin))
		}
	case w.Ref != "":
		if pin.Ref != "refs/tags/"+w.Ref && pin.Ref != "refs/heads/"+w.Ref {
			return fmt.Sprintf("skills.yaml asks for ref %s, but the lock's commit came from %q", w.Ref, pin.Ref)
		}
	case w.Constraint != "":
		if !strings.HasPrefix(pin.Ref, "refs/tags/") {
			return fmt.Sprintf("skills.yaml asks for versions (tags), but the lock's commit came from %q", pin.Ref)
		}
	}
	// A version taken from a tag is the tag's: 1.1.0 may not be pinned
	// to the tag v1.0.0 (a downgrade the manifest could be packed for).
	if tag, ok := strings.CutPrefix(pin.Ref, "refs/tags/"); ok && w.Ref == "" {
		if v, _ := git.TagVersion(tag, e.Name, w.GitSource().Subdir); v == nil || !sameVersion(v.String(), e.Version) {
			return fmt.Sprintf("version %s is pinned to the tag %s, which is not that version", e.Version, tag)
		}
	}
	return ""
}
