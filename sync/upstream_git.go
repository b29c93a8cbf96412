package sync

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/giturl"
)

// GitUpstream is a git repository as an Upstream: the skills are the
// folders holding a SKILL.md (below Source.Subdir), and their versions
// are the repository's semver tags: "v1.2.0" or "1.2.0" versions every
// skill of the repository at that commit; "pdf/v1.2.0" or "pdf@1.2.0"
// versions the skill pdf only (the prefix may be its folder's path, the
// way Go modules tag subdirectories), and wins over a plain tag of the
// same version. With Source.Ref set, only that ref is read, and each
// skill takes its SKILL.md's version.
type GitUpstream struct {
	Client *git.Client
	Source giturl.Source
}

// String is the repository (credentials redacted) and folder.
func (u *GitUpstream) String() string {
	s := giturl.Redact(u.Source.URL)
	if u.Source.Subdir != "" {
		s += "//" + u.Source.Subdir
	}
	return s
}

// gitRef is what Export needs of a version.
type gitRef struct{ commit, dir string }

// ErrNoTags: a repository has no semver tags to take versions from.
var ErrNoTags = errors.New("no semver tags")

// Versions lists the tags, fetches each tagged commit (shallow, cached)
// and lists its skill folders.
func (u *GitUpstream) Versions(ctx context.Context) ([]UpstreamVersion, error) {
	refs, err := u.Client.Refs(ctx, u.Source.URL)
	if err != nil {
		return nil, err
	}
	type tagged struct {
		ref    git.Ref
		prefix string
		v      *semver.Version
	}
	var tags []tagged
	if r := u.Source.Ref; r != "" {
		commit := ""
		for _, ref := range refs {
			if ref.Short() == r {
				commit = ref.Commit
			}
		}
		if commit == "" && git.IsCommit(r) {
			commit = r
		}
		if commit == "" {
			return nil, fmt.Errorf("%s: ref %q: %w", u, r, git.ErrNotFound)
		}
		tags = append(tags, tagged{ref: git.Ref{Name: r, Commit: commit}})
	} else {
		for _, ref := range refs {
			if !ref.IsTag() {
				continue
			}
			if prefix, v, ok := parseTag(ref.Short()); ok {
				tags = append(tags, tagged{ref: ref, prefix: prefix, v: v})
			}
		}
		if len(tags) == 0 {
			return nil, fmt.Errorf("%s: %w: tag releases (v1.2.0, or pdf/v1.2.0 for one skill of several), or name a ref (%s#main)", u, ErrNoTags, u)
		}
	}
	// Listing reads each tagged commit's tree (a fetch apiece): a
	// repository may not make one sync read without end.
	commits := map[string]bool{}
	for _, t := range tags {
		commits[t.ref.Commit] = true
	}
	if max := min(MaxUpstreamCommits, u.Client.Limits.WithDefaults().MaxListItems); len(commits) > max {
		return nil, fmt.Errorf("%s: %w: %d tagged commits, more than the %d one sync reads; name one ref (%s#pdf/v1.2.0) or sync from a registry", u, ErrTooMany, len(commits), max, u)
	}
	// Each version is exported, packed and vetted: a small repository
	// can name the same SKILL.md under any number of folders.
	maxVersions := min(MaxUpstreamVersions, u.Client.Limits.WithDefaults().MaxListItems)
	tooMany := func(what string) error {
		return fmt.Errorf("%s: %w: %s, more than the %d one sync reads; name one ref (%s#pdf/v1.2.0) or narrow it to a folder (%s//skills)", u, ErrTooMany, what, maxVersions, u, giturl.Redact(u.Source.URL))
	}
	// Prefixed tags first, so that they win over a plain tag.
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].prefix != "" && tags[j].prefix == "" })
	dirsAt := map[string][]string{}
	seen := map[string]bool{} // name@version
	var out []UpstreamVersion
	for _, t := range tags {
		dirs, ok := dirsAt[t.ref.Commit]
		if !ok {
			if err := u.Client.Fetch(ctx, u.Source.URL, t.ref.Commit); err != nil {
				return nil, err
			}
			if dirs, err = u.Client.SkillDirs(ctx, u.Source.URL, t.ref.Commit, u.Source.Subdir); err != nil {
				return nil, err
			}
			if len(dirs) > maxVersions {
				return nil, tooMany(fmt.Sprintf("%d skill folders at %s", len(dirs), t.ref.Short()))
			}
			dirsAt[t.ref.Commit] = dirs
		}
		for _, d := range dirs {
			name := path.Base(d)
			if d == "." || d == "" {
				name = path.Base(strings.TrimSuffix(strings.TrimSuffix(u.Source.URL, "/"), ".git"))
				if u.Source.Subdir != "" {
					name = path.Base(u.Source.Subdir)
				}
			}
			if t.prefix != "" && t.prefix != name && t.prefix != d {
				continue
			}
			key := name + "@"
			if t.v != nil {
				key += t.v.String()
			}
			if seen[key] {
				continue
			}
			seen[key] = true
			if len(out) == maxVersions {
				return nil, tooMany("skill versions")
			}
			src := fmt.Sprintf("%s//%s@%s", giturl.Redact(u.Source.URL), d, t.ref.Commit)
			out = append(out, UpstreamVersion{
				Name: name, Version: t.v, Tag: t.ref.Short(),
				Source: src, Revision: t.ref.Commit,
				ref: gitRef{commit: t.ref.Commit, dir: d},
			})
		}
	}
	return out, nil
}

// Export writes the version's folder at its commit.
func (u *GitUpstream) Export(ctx context.Context, v UpstreamVersion, dst string) error {
	r, ok := v.ref.(gitRef)
	if !ok {
		return fmt.Errorf("%s: %s is not one of its versions", u, v.Name)
	}
	dir := r.dir
	if dir == "." {
		dir = ""
	}
	return u.Client.Export(ctx, u.Source.URL, r.commit, dir, dst)
}

// parseTag reads a version tag: "v1.2.0", "1.2.0", "pdf/v1.2.0",
// "skills/pdf/v1.2.0", "pdf@1.2.0". prefix is "" for a plain tag.
func parseTag(tag string) (prefix string, v *semver.Version, ok bool) {
	rest := tag
	if i := strings.LastIndexAny(tag, "/@"); i >= 0 {
		prefix, rest = tag[:i], tag[i+1:]
		if prefix == "" {
			return "", nil, false
		}
	}
	v, err := semver.StrictNewVersion(strings.TrimPrefix(rest, "v"))
	if err != nil {
		return "", nil, false
	}
	return prefix, v, true
}
