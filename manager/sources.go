package manager

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/source"
	"golang.org/x/sync/errgroup"
)

// Sources: skills that skills.yaml names from a git repository, a local
// folder or a well-known index rather than a registry. Each kind is a
// source.Source in Manager.Sources; a version's files are exported and
// packed into an OCI layout under the cache (source.Store), so such a
// skill is resolved, locked (with its pin), checked and installed as an
// OCI skill is. A depends_on name is looked up the same way for every
// skill: the source skills.yaml names for it, else the project's
// registry.

// ErrNoSource is returned when skills.yaml names a kind of source this
// skillpm has no implementation for.
var ErrNoSource = errors.New("no such kind of source")

// SourceTrust is implemented by a Trust that also judges skills from
// sources other than registries, which carry no sigstore signature.
type SourceTrust interface {
	// CheckSource refuses s when the policy rule for name (the source as
	// a policy prefix sees it: github.com/acme/skills/pdf) requires
	// signatures.
	CheckSource(s lockfile.Skill, name string) error
}

// Entry returns the source entry of name, and false when skills.yaml
// wants it from a registry (or does not name it).
func (m *Manager) Entry(name string) (source.Entry, bool) {
	w, ok := m.Project.Skills[name]
	if !ok || w.Kind() == project.KindOCI {
		return source.Entry{}, false
	}
	return EntryOf(m.Project, name, w), true
}

// EntryOf is the source entry of want w of name in p.
func EntryOf(p *project.Manifest, name string, w project.Want) source.Entry {
	e := source.Entry{Name: name, Kind: w.Kind()}
	switch e.Kind {
	case project.KindGit:
		src := w.GitSource()
		e.Location, e.Path, e.Ref = src.URL, src.Subdir, src.Ref
		e.Repository = "git+" + src.URL
		if e.Path != "" {
			e.Repository += "//" + e.Path
		}
		e.Root = p.Dir() // a file:// repository must be inside, or allowed
	case project.KindLocal:
		rel := filepath.ToSlash(filepath.Clean(w.Local))
		e.Location = filepath.Join(p.Dir(), filepath.FromSlash(rel))
		e.Repository = "local:" + rel
		e.Root = p.Dir()
	case project.KindWellKnown:
		e.Location = w.WellKnown
		e.Repository = "wellknown+" + w.WellKnown
	}
	return e
}

// PolicyName is how a trust policy's prefixes see a sourced repository:
// git+https://github.com/acme/skills.git//pdf is github.com/acme/skills/pdf,
// wellknown+https://example.com/docs is example.com/docs,
// git+file:///srv/mono//pdf is file:/srv/mono/pdf, local:skills/dev stays
// local:skills/dev.
func PolicyName(repository string) string {
	rest, ok := strings.CutPrefix(repository, "git+")
	if !ok {
		if r, ok := strings.CutPrefix(repository, "wellknown+"); ok {
			rest = r
		} else {
			return repository
		}
	}
	loc, sub, _ := strings.Cut(rest, "//")
	if i := strings.Index(rest, "://"); i >= 0 {
		loc, sub, _ = strings.Cut(rest[i+3:], "//")
		loc = rest[:i+3] + loc
	}
	host, p := "", ""
	if u, err := url.Parse(loc); err == nil && u.Scheme == "file" {
		out := "file:" + strings.TrimSuffix(path.Clean("/"+u.Path), ".git")
		if sub != "" {
			out += "/" + cleanSub(sub)
		}
		return out
	} else if err == nil && u.Host != "" {
		host, p = u.Hostname(), u.Path
	} else if h, path, ok := strings.Cut(loc, ":"); ok { // git@host:path
		_, host, _ = strings.Cut(h, "@")
		if host == "" {
			host = h
		}
		p = path
	}
	p = strings.TrimSuffix(strings.Trim(path.Clean("/"+p), "/"), ".git")
	out := strings.ToLower(host) + "/" + p
	if sub != "" {
		out += "/" + cleanSub(sub)
	}
	return strings.TrimSuffix(out, "/")
}

// cleanSub is a subfolder as a policy compares it: "a/./b/../c" is
// "a/c", so that dot segments cannot make a name look like another.
func cleanSub(sub string) string {
	return strings.TrimPrefix(path.Clean("/"+sub), "/")
}

func (m *Manager) kind(e source.Entry) (source.Source, error) {
	if m.Store == nil {
		return nil, fmt.Errorf("%s: %w: no cache for packed sources", e.Name, ErrNoSource)
	}
	if s := m.Sources[e.Kind]; s != nil {
		return s, nil
	}
	return nil, fmt.Errorf("%s: %w %q in this skillpm; install it from a registry instead", e.Name, ErrNoSource, e.Kind)
}

// sourced is the per-resolve state of sourced skills.
type sourced struct {
	m        *Manager
	previous *lockfile.File
	upgrade  func(name string) bool
	mu       sync.Mutex
	cands    map[string][]source.Candidate
}

// versions lists the versions of a sourced skill. An unversioned
// candidate is packed now to learn its version; a tracked one (a branch)
// keeps the previous lock's commit unless the skill is upgraded.
func (s *sourced) versions(ctx context.Context, e source.Entry) ([]*semver.Version, error) {
	s.mu.Lock()
	done, ok := s.cands[e.Name]
	s.mu.Unlock()
	if ok {
		var vs []*semver.Version
		for _, c := range done {
			vs = append(vs, c.Version)
		}
		return vs, nil
	}
	src, err := s.m.kind(e)
	if err != nil {
		return nil, err
	}
	cands, err := src.Versions(ctx, e)
	if err != nil {
		if errors.Is(err, source.ErrNotFound) {
			return nil, fmt.Errorf("%s: %w: %w", e.Name, resolve.ErrNotFound, err)
		}
		// Offline: what the previous lock pins, when its packed copy is
		// in the cache, is still a candidate (a re-resolve that changes
		// nothing needs no network).
		p := s.previousOf(e)
		if p == nil || s.upgrade(e.Name) {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		if pk, cerr := s.m.Store.Cached(ctx, e, *p.Source, p.Version); cerr != nil || pk == nil {
			return nil, fmt.Errorf("%s: %w", e.Name, err)
		}
		cands = []source.Candidate{{Version: semver.MustParse(p.Version), Pin: *p.Source}}
	}
	if p := s.previousOf(e); p != nil && e.Kind == project.KindGit {
		for i, c := range cands {
			if c.Tracked && c.Pin.Ref == p.Source.Ref && !s.upgrade(e.Name) {
				cands[i].Pin = *p.Source // a branch stays at its locked commit
			}
		}
	}
	if p := s.previousOf(e); p != nil && e.Kind == project.KindWellKnown && !s.upgrade(e.Name) {
		cands = keepLocked(cands, *p)
	}
	var vs []*semver.Version
	for i, c := range cands {
		if c.Version == nil {
			pk, err := s.m.Store.Pack(ctx, src, e, c)
			if err != nil {
				return nil, err
			}
			v, err := semver.StrictNewVersion(pk.Version)
			if err != nil {
				return nil, fmt.Errorf("%s: packed version %q: %w", e.Name, pk.Version, err)
			}
			cands[i].Version = v
		}
		vs = append(vs, cands[i].Version)
	}
	s.mu.Lock()
	s.cands[e.Name] = cands
	s.mu.Unlock()
	return vs, nil
}

// keepLocked keeps the locked pin of a well-known skill a candidate: an
// origin serves one version at a time, so without it a re-resolve for
// another reason would take whatever the origin serves now. The
// candidate of the locked version (or the unversioned one) takes the
// locked pin; when the origin serves another version only, the locked
// one is added beside it. 'update' (upgrade) takes the new one.
func keepLocked(cands []source.Candidate, p lockfile.Skill) []source.Candidate {
	v, err := semver.StrictNewVersion(p.Version)
	if err != nil || p.Source == nil {
		return cands
	}
	for i, c := range cands {
		if c.Version == nil || c.Version.Equal(v) {
			pin := *p.Source
			if pin.URL == "" && pin.Digest == c.Pin.Digest {
				pin.URL = c.Pin.URL // a lock written before URLs were recorded gains it
			}
			cands[i] = source.Candidate{Version: v, Pin: pin, Tracked: c.Tracked}
			return cands
		}
	}
	return append(cands, source.Candidate{Version: v, Pin: *p.Source})
}

func (s *sourced) previousOf(e source.Entry) *lockfile.Skill {
	if s.previous == nil {
		return nil
	}
	p := s.previous.Find(e.Name)
	if p == nil || p.Source == nil || p.Repository != e.Repository {
		return nil
	}
	return p
}

// describe packs the candidate of version and returns its release. A
// tag that names another commit than the previous lock pins at the same
// version is a moved tag: an error, unless the skill is upgraded.
func (s *sourced) describe(ctx context.Context, e source.Entry, version string) (*Release, error) {
	s.mu.Lock()
	cands := s.cands[e.Name]
	s.mu.Unlock()
	var cand *source.Candidate
	for i, c := range cands {
		if c.Version != nil && c.Version.Original() == version {
			cand = &cands[i]
		}
	}
	if cand == nil {
		return nil, fmt.Errorf("%s: version %s is not offered by %s: %w", e.Name, version, e.Repository, resolve.ErrNotFound)
	}
	if p := s.previousOf(e); p != nil && !cand.Tracked && p.Version == version && p.Source.Ref == cand.Pin.Ref &&
		p.Source.Commit != cand.Pin.Commit && !s.upgrade(e.Name) {
		return nil, fmt.Errorf("%s: %s %s now names commit %s, but skills.lock pins %s: the tag was moved: %w; check the change, then run 'skillpm update %s'",
			e.Name, e.Repository, strings.TrimPrefix(p.Source.Ref, "refs/tags/"), cand.Pin.Commit, p.Source.Commit, errPinMismatch, e.Name)
	}
	src, err := s.m.kind(e)
	if err != nil {
		return nil, err
	}
	pk, err := s.m.Store.Pack(ctx, src, e, *cand)
	if err != nil {
		return nil, pinError(err)
	}
	pin := pk.Pin
	return &Release{Repository: e.Repository, Name: pk.Name, Version: pk.Version, Manifest: pk.Manifest, Content: pk.Content, DependsOn: pk.DependsOn, Source: &pin}, nil
}

// errPinMismatch is a source that no longer serves what the lock pins:
// an integrity failure (exit 10), like a tampered blob.
var errPinMismatch = fmt.Errorf("%w: %w", source.ErrPinMismatch, registry.ErrIntegrity)

func pinError(err error) error {
	if errors.Is(err, source.ErrPinMismatch) && !errors.Is(err, registry.ErrIntegrity) {
		return fmt.Errorf("%w (%w)", err, registry.ErrIntegrity)
	}
	return err
}

// checkedKeyOf names the checked mark (checked.go) of lock entry e. A
// sourced entry's verdict also rests on its pin and on the entry
// skills.yaml gives it (the packed copy is found by both, and a branch's
// commit was checked to be on that branch), so they are part of the
// name: a warm install of an unchanged sourced skill reads neither its
// packed copy nor its source.
func (m *Manager) checkedKeyOf(lock *lockfile.File, e lockfile.Skill) string {
	if lockfile.SourceKind(e.Repository) == "" {
		return checkedKey(m.Project, lock, e, m.Project.Abs(e.Repository))
	}
	src, ok := m.Entry(e.Name)
	if !ok || e.Source == nil || src.Repository != e.Repository {
		return "" // CheckLock refuses it; never remembered
	}
	pin := *e.Source
	return checkedKey(m.Project, lock, e, strings.Join([]string{"sourced", e.Repository, src.Kind, src.Location, src.Path, src.Ref,
		pin.Commit, pin.Ref, pin.Digest, pin.URL}, "\x00"))
}

// packedFor returns the packed copy of a locked sourced skill: from the
// cache, or exported again from its source at the pinned commit or
// digest and packed, which must give the locked manifest digest.
func (m *Manager) packedFor(ctx context.Context, s lockfile.Skill) (*source.Packed, error) {
	if s.Source == nil {
		return m.packFor(ctx, s)
	}
	// The whole entry is the key: the same manifest claimed for another
	// pin is checked afresh.
	key := strings.Join([]string{s.Name, s.Version, s.Repository, s.Manifest, s.Source.Commit, s.Source.Ref, s.Source.Digest}, "\x00")
	if p, ok := m.packed.Load(key); ok {
		return p.(*source.Packed), nil
	}
	p, err := m.packFor(ctx, s)
	if err == nil {
		m.packed.Store(key, p)
	}
	return p, err
}

// packFor is packedFor without the per-run memory.
func (m *Manager) packFor(ctx context.Context, s lockfile.Skill) (*source.Packed, error) {
	e, ok := m.Entry(s.Name)
	if !ok || s.Source == nil || e.Repository != s.Repository {
		return nil, fmt.Errorf("%s: skills.lock names the source %s, which skills.yaml does not: %w", s.Name, s.Repository, ErrLockMismatch)
	}
	src, err := m.kind(e)
	if err != nil {
		return nil, err
	}
	// The lock is hostile: a pin the source can vouch for (a branch's
	// commit is on the branch) is checked before its copy is used.
	if ch, ok := src.(source.Checker); ok {
		if err := ch.Check(ctx, e, *s.Source); err != nil {
			return nil, pinError(err)
		}
	}
	p, err := m.Store.Cached(ctx, e, *s.Source, s.Version)
	if err == nil && p == nil {
		v, verr := semver.StrictNewVersion(s.Version)
		if verr != nil {
			return nil, verr
		}
		p, err = m.Store.Pack(ctx, src, e, source.Candidate{Version: v, Pin: *s.Source})
	}
	if err != nil {
		return nil, pinError(err)
	}
	if p.Manifest != s.Manifest {
		return nil, fmt.Errorf("%s: %s at %s packs to manifest %s, but skills.lock pins %s: %w; run 'skillpm update %s' if the change is expected",
			s.Name, s.Repository, pinText(*s.Source), p.Manifest, s.Manifest, errPinMismatch, s.Name)
	}
	return p, nil
}

func pinText(p lockfile.Source) string {
	if p.Commit != "" {
		return "commit " + p.Commit
	}
	return p.Digest
}

// pinnedManifest reads the manifest a lock entry pins: a sourced entry
// from its packed copy, others from the registry.
func (m *Manager) pinnedManifest(lock *lockfile.File) func(ctx context.Context, repo, digest string) (*Release, error) {
	return func(ctx context.Context, repo, digest string) (*Release, error) {
		if lockfile.SourceKind(repo) == "" || m.PinnedFromRegistry {
			return m.Registry.Manifest(ctx, repo, digest)
		}
		for _, s := range lock.Skills {
			if s.Repository == repo && s.Manifest == digest {
				p, err := m.packedFor(ctx, s)
				if err != nil {
					return nil, err
				}
				pin := p.Pin
				return &Release{Repository: repo, Name: p.Name, Version: p.Version, Manifest: p.Manifest, Content: p.Content, DependsOn: p.DependsOn, Source: &pin}, nil
			}
		}
		return nil, fmt.Errorf("%s: no lock entry pins %s: %w", repo, digest, ErrLockMismatch)
	}
}

// localChanged reports whether a locked local folder no longer holds the
// locked content (install then re-resolves it, as for an edited
// skills.yaml).
func (m *Manager) localChanged(ctx context.Context, lock *lockfile.File) (bool, error) {
	if lock == nil {
		return false, nil
	}
	for _, s := range lock.Skills {
		e, ok := m.Entry(s.Name)
		if !ok || e.Kind != project.KindLocal || s.Source == nil {
			continue
		}
		src, err := m.kind(e)
		if err != nil {
			return false, err
		}
		cands, err := src.Versions(ctx, e)
		if err != nil {
			return false, err
		}
		if len(cands) != 1 || cands[0].Pin.Digest != s.Source.Digest {
			return true, nil
		}
	}
	return false, nil
}

// ListSkills lists the skill folders a location holds under e.Path
// (source.Lister), for 'skillpm add' to offer; a kind that cannot list
// returns e.Path alone.
func (m *Manager) ListSkills(ctx context.Context, e source.Entry) ([]string, error) {
	src, err := m.kind(e)
	if err != nil {
		return nil, err
	}
	l, ok := src.(source.Lister)
	if !ok {
		return []string{e.Path}, nil
	}
	return l.Skills(ctx, e)
}

// prefetchSourced lists and packs the newest version of every sourced
// skill skills.yaml names, eight at a time, before the solver asks for
// them one by one: exporting and packing is most of a cold install's
// work. Errors are left for the solver to meet and report.
func (s *resolverSource) prefetchSourced(ctx context.Context) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for _, name := range s.m.Project.Names() {
		if _, ok := s.m.Entry(name); !ok {
			continue
		}
		g.Go(func() error {
			vs, err := s.Versions(gctx, name)
			if err != nil || len(vs) == 0 {
				return nil
			}
			top := vs[0]
			for _, v := range vs {
				if v.GreaterThan(top) {
					top = v
				}
			}
			s.describe(gctx, name, top.Original())
			return nil
		})
	}
	g.Wait()
}

// SourceLayout returns the OCI layout (oci:DIR) holding the packed copy
// of a locked sourced skill, packing it from its source at the pin when
// the cache lacks it: for 'skillpm bundle', which copies it from there.
func (m *Manager) SourceLayout(ctx context.Context, s lockfile.Skill) (string, error) {
	p, err := m.packedFor(ctx, s)
	if err != nil {
		return "", err
	}
	return p.Layout, nil
}
