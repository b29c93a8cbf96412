package git

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/giturl"
)

// Kind is the git kind of source.Source: semver tags are versions
// (vX.Y.Z, NAME/vX.Y.Z, NAME@X.Y.Z, and the same with the folder's name
// or path), a branch is tracked, a commit is pinned. A remote's refs are
// listed once per Kind, so fifty skills of one monorepo cost one
// ls-remote.
type Kind struct {
	Client *Client
	// LocalRoots are absolute folders under which an entry may name a
	// file:// repository although it lies outside the entry's project
	// (source.Entry.Root); the user's allow_local_git.
	LocalRoots []string

	mu   sync.Mutex
	refs map[string]*refList
}

type refList struct {
	once sync.Once
	refs []Ref
	err  error
}

var _ source.Source = (*Kind)(nil)

// listRefs lists url's refs once per Kind.
func (s *Kind) listRefs(ctx context.Context, url string) ([]Ref, error) {
	s.mu.Lock()
	if s.refs == nil {
		s.refs = map[string]*refList{}
	}
	l := s.refs[url]
	if l == nil {
		l = &refList{}
		s.refs[url] = l
	}
	s.mu.Unlock()
	l.once.Do(func() { l.refs, l.err = s.Client.Refs(ctx, url) })
	return l.refs, l.err
}

// TagVersion reads a tag as a version of the skill name in the folder
// dir: "NAME/vX.Y.Z", "NAME@X.Y.Z" (and the same with the folder's base
// name or its whole path) give prefixed=true; "vX.Y.Z" and "X.Y.Z" give
// prefixed=false. Other tags give nil.
func TagVersion(tag, name, dir string) (v *semver.Version, prefixed bool) {
	prefixes := []string{name}
	if dir != "" {
		prefixes = append(prefixes, path.Base(dir), dir)
	}
	for _, p := range prefixes {
		for _, sep := range []string{"/", "@"} {
			if rest, ok := strings.CutPrefix(tag, p+sep); ok {
				if v := strict(rest); v != nil {
					return v, true
				}
			}
		}
	}
	return strict(tag), false
}

func strict(s string) *semver.Version {
	v, err := semver.StrictNewVersion(strings.TrimPrefix(s, "v"))
	if err != nil {
		return nil
	}
	if strings.HasPrefix(s, "v") {
		// Keep the tag's own spelling out of the version: v1.2.0 is 1.2.0.
		v, _ = semver.StrictNewVersion(v.String())
	}
	return v
}

// Versions lists e's candidates. With e.Ref: that branch (tracked), tag
// or full commit. Without: the semver tags of the skill (prefixed tags
// when the repository has any for it, else plain vX.Y.Z tags), or, when
// there are none, the default branch, tracked.
func (s *Kind) Versions(ctx context.Context, e source.Entry) ([]source.Candidate, error) {
	if err := s.checkLocal(e); err != nil {
		return nil, err
	}
	if IsCommit(e.Ref) {
		return []source.Candidate{{Pin: lockfile.Source{Commit: e.Ref}}}, nil
	}
	refs, err := s.listRefs(ctx, e.Location)
	if err != nil {
		return nil, wrapErr(err)
	}
	if e.Ref != "" {
		for _, want := range []string{"refs/tags/" + e.Ref, "refs/heads/" + e.Ref} {
			for _, r := range refs {
				if r.Name == want {
					return []source.Candidate{{Pin: lockfile.Source{Commit: r.Commit, Ref: r.Name}, Tracked: !r.IsTag()}}, nil
				}
			}
		}
		return nil, fmt.Errorf("%s has no branch or tag %q (%s): %w; fix ref in skills.yaml, or name a full commit", giturl.Redact(e.Location), e.Ref, summarize(refs), source.ErrNotFound)
	}
	byVersion := map[string]source.Candidate{}
	prefixedSeen := false
	var plain []source.Candidate
	for _, r := range refs {
		if !r.IsTag() {
			continue
		}
		v, prefixed := TagVersion(r.Short(), e.Name, e.Path)
		if v == nil {
			continue
		}
		c := source.Candidate{Version: v, Pin: lockfile.Source{Commit: r.Commit, Ref: r.Name}}
		if !prefixed {
			plain = append(plain, c)
			continue
		}
		prefixedSeen = true
		if _, dup := byVersion[v.String()]; !dup {
			byVersion[v.String()] = c
		}
	}
	if !prefixedSeen {
		for _, c := range plain {
			if _, dup := byVersion[c.Version.String()]; !dup {
				byVersion[c.Version.String()] = c
			}
		}
	}
	if len(byVersion) == 0 {
		head, err := s.head(ctx, e.Location)
		if err != nil {
			return nil, err
		}
		return []source.Candidate{head}, nil
	}
	out := make([]source.Candidate, 0, len(byVersion))
	for _, c := range byVersion {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version.LessThan(out[j].Version) })
	return out, nil
}

// head is the remote's default branch, tracked.
func (s *Kind) head(ctx context.Context, url string) (source.Candidate, error) {
	out, err := s.Client.runNet(ctx, "", url, "ls-remote", "--symref", "--", url, "HEAD")
	if err != nil {
		return source.Candidate{}, wrapErr(fmt.Errorf("list refs of %s: %w", giturl.Redact(url), err))
	}
	var branch, commit string
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "ref: "); ok {
			branch, _, _ = strings.Cut(rest, "\t")
		} else if c, name, ok := strings.Cut(line, "\t"); ok && name == "HEAD" && IsCommit(c) {
			commit = c
		}
	}
	if commit == "" {
		return source.Candidate{}, fmt.Errorf("%s has no default branch (an empty repository?): %w; name a ref", giturl.Redact(url), source.ErrNotFound)
	}
	return source.Candidate{Pin: lockfile.Source{Commit: commit, Ref: branch}, Tracked: true}, nil
}

// Export checks that pin still holds (a tag still names its commit; a
// commit can still be fetched), fetches the commit and writes e's folder
// of it into dir. Offline, a commit already cached is exported without
// the tag check.
func (s *Kind) Export(ctx context.Context, e source.Entry, pin lockfile.Source, dir string) error {
	if err := s.checkLocal(e); err != nil {
		return err
	}
	url := giturl.Redact(e.Location)
	if tag, ok := strings.CutPrefix(pin.Ref, "refs/tags/"); ok {
		refs, err := s.listRefs(ctx, e.Location)
		if err == nil {
			now := ""
			for _, r := range refs {
				if r.Name == pin.Ref {
					now = r.Commit
				}
			}
			switch {
			case now == "":
				return fmt.Errorf("%s: the tag %s of %s is gone, and skills.lock pins it at commit %s: %w; check what happened upstream, then run 'skillpm update %s'", e.Name, tag, url, pin.Commit, source.ErrPinMismatch, e.Name)
			case now != pin.Commit:
				return fmt.Errorf("%s: the tag %s of %s now names commit %s, but skills.lock pins %s: the tag was moved: %w; check the change, then run 'skillpm update %s'", e.Name, tag, url, now, pin.Commit, source.ErrPinMismatch, e.Name)
			}
		} else if !s.Client.cached(ctx, e.Location, pin.Commit) {
			return wrapErr(err)
		}
	}
	if err := s.Client.Fetch(ctx, e.Location, pin.Commit); err != nil {
		if errors.Is(err, ErrNotFound) {
			from := ""
			if pin.Ref != "" {
				from = " (from " + strings.TrimPrefix(strings.TrimPrefix(pin.Ref, "refs/heads/"), "refs/tags/") + ")"
			}
			return fmt.Errorf("%s: commit %s%s that skills.lock pins is gone from %s (force-pushed away?): %w; run 'skillpm update %s' to lock what it holds now", e.Name, pin.Commit, from, url, source.ErrPinMismatch, e.Name)
		}
		return wrapErr(err)
	}
	if err := s.Client.Export(ctx, e.Location, pin.Commit, e.Path, dir); err != nil {
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("%s: %s has no folder %q at %s: %w; fix path in skills.yaml ('skillpm add %s' lists its skills)", e.Name, url, e.Path, short(pin.Commit), source.ErrNotFound, url)
		}
		return err
	}
	return nil
}

// cached reports whether commit is in url's cached repository.
func (c *Client) cached(ctx context.Context, url, commit string) bool {
	dir, unlock, err := c.repo(ctx, url)
	if err != nil {
		return false
	}
	defer unlock()
	return c.has(ctx, dir, commit)
}

func wrapErr(err error) error {
	if errors.Is(err, ErrNotFound) && !errors.Is(err, source.ErrNotFound) {
		return fmt.Errorf("%w (%w)", err, source.ErrNotFound)
	}
	return err
}

func short(commit string) string { return commit[:min(12, len(commit))] }

// summarize names a few of refs, for a message about a missing ref.
func summarize(refs []Ref) string {
	var heads []string
	tags := 0
	for _, r := range refs {
		if r.IsTag() {
			tags++
		} else {
			heads = append(heads, r.Short())
		}
	}
	if len(heads) > 5 {
		heads = append(heads[:5], "…")
	}
	return fmt.Sprintf("branches: %s; %d tags", strings.Join(heads, ", "), tags)
}

var _ source.Lister = (*Kind)(nil)

// Skills lists the skill folders under e.Path at e.Ref, or at the newest
// semver tag of the repository, or at its default branch.
func (s *Kind) Skills(ctx context.Context, e source.Entry) ([]string, error) {
	if err := s.checkLocal(e); err != nil {
		return nil, err
	}
	var commit string
	switch {
	case IsCommit(e.Ref):
		commit = e.Ref
	case e.Ref != "":
		cands, err := s.Versions(ctx, e)
		if err != nil {
			return nil, err
		}
		commit = cands[0].Pin.Commit
	default:
		head, err := s.head(ctx, e.Location)
		if err != nil {
			return nil, err
		}
		commit = head.Pin.Commit
	}
	if err := s.Client.Fetch(ctx, e.Location, commit); err != nil {
		return nil, wrapErr(err)
	}
	dirs, err := s.Client.SkillDirs(ctx, e.Location, commit, e.Path)
	if err != nil {
		return nil, wrapErr(err)
	}
	return dirs, nil
}
