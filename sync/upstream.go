package sync

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	gosync "sync"

	"github.com/Masterminds/semver/v3"
	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/internal/lazyre"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/giturl"
	"github.com/skillpm/skillpm/source/wellknown"
	"github.com/skillpm/skillpm/source/wellknown/discovery"
)

// Upstream is where skills come from when they are not in a registry: a
// git repository or a well-known origin. Run mirrors one as it mirrors a
// registry prefix: each selected version is exported (through the same
// hostile-archive checks as an OCI layer), packed reproducibly into a
// local OCI layout, then vetted, attested and copied by the very code
// that handles registry upstreams. The same content always packs to the
// same manifest digest, so a second run skips what the mirror has, and
// an upstream that changes a published version is rejected.
type Upstream interface {
	// String names the upstream in messages.
	String() string
	// Versions lists the skill versions the upstream offers.
	Versions(ctx context.Context) ([]UpstreamVersion, error)
	// Export writes version v's skill folder into dst, which does not
	// exist.
	Export(ctx context.Context, v UpstreamVersion, dst string) error
}

// UpstreamVersion is one version of one skill of an Upstream.
type UpstreamVersion struct {
	// Name is the skill's name: its repository below the mirror prefix.
	Name string
	// Version is its version; nil when the upstream gives none (a
	// well-known entry without one: the frontmatter's is used).
	Version *semver.Version
	// Tag is the upstream's own label for it (a git tag), for the
	// content rules' tags: patterns; "" means the version.
	Tag string
	// Source is where exactly it comes from, immutably (a repository
	// URL, folder and commit; an index URL and artifact digest): the
	// vetted attestation's upstream and the manifest's source.
	Source string
	// Revision is its immutable id (a commit, an artifact digest): the
	// manifest's org.opencontainers.image.revision.
	Revision string

	ref any // the implementation's own handle
}

// MaxUpstreamCommits bounds the tagged commits of a git upstream one
// sync reads (limits.max_list_items when lower).
const MaxUpstreamCommits = 1000

// MaxUpstreamVersions bounds the skill versions a git upstream lists
// for one sync (limits.max_list_items when lower), as
// wellknown.MaxEntries bounds a well-known index.
const MaxUpstreamVersions = 10000

// ErrTooMany: an upstream lists more versions than one sync reads.
var ErrTooMany = errors.New("too many versions")

// ErrNoVersion: an upstream skill has no version to publish it under.
var ErrNoVersion = errors.New("no version")

// runUpstream is Run for a non-registry upstream.
func (r *runner) runUpstream(ctx context.Context, rep *Report) error {
	up := r.opts.Upstream
	all, err := up.Versions(ctx)
	if err != nil {
		return fmt.Errorf("list the skills of %s: %w", up, err)
	}
	byName := map[string][]UpstreamVersion{}
	for _, v := range all {
		if len(r.opts.Config.Repositories) > 0 && !contains(r.opts.Config.Repositories, v.Name) {
			continue
		}
		byName[v.Name] = append(byName[v.Name], v)
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	stage, err := os.MkdirTemp(r.opts.TempDir, "skillpm-sync-upstream-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	n := r.opts.Concurrency
	if n <= 0 {
		n = 4
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(n)
	var mu gosync.Mutex
	for _, name := range names {
		vs := byName[name]
		g.Go(func() error {
			items := r.syncUpstreamSkill(gctx, stage, name, vs)
			mu.Lock()
			rep.Items = append(rep.Items, items...)
			mu.Unlock()
			return nil
		})
	}
	g.Wait()
	return nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// syncUpstreamSkill syncs the selected versions of one upstream skill,
// lowest first.
func (r *runner) syncUpstreamSkill(ctx context.Context, stage, name string, vs []UpstreamVersion) []Item {
	fail := func(err error) []Item {
		return []Item{{Repository: name, Action: ActionFailed, Reason: err.Error(), err: err}}
	}
	if !skill.ValidName(name) {
		// The upstream names it (a git folder): it must not become a
		// repository other than its own below the mirror prefix
		// ("pdf:9.9.9" reads as pdf at tag 9.9.9), nor a registry fault.
		return []Item{{Repository: name, Action: ActionRejected, Check: "content",
			Reason: fmt.Sprintf("%q is not a valid skill name (lowercase letters, digits and hyphens), so it names no repository below %s", name, r.to.Repo())}}
	}
	dstRef, err := registry.Join(r.to, name)
	if err != nil {
		return fail(err)
	}
	m := &dstRepo{ref: dstRef, client: r.opts.Client}
	m.t, err = r.opts.Client.Target(ctx, dstRef, false)
	if err != nil && !errors.Is(err, registry.ErrNotFound) {
		return fail(err)
	}
	// Versions the upstream names are selected before anything is
	// fetched; those it does not name are read first.
	var known, unknown []UpstreamVersion
	for _, v := range vs {
		if v.Version == nil {
			unknown = append(unknown, v)
		} else if r.opts.Config.Selected(name, tagOf(v), v.Version) {
			known = append(known, v)
		}
	}
	sort.Slice(known, func(i, j int) bool { return known[i].Version.LessThan(known[j].Version) })
	var items []Item
	for _, v := range append(known, unknown...) {
		it := r.syncUpstreamVersion(ctx, stage, m, v)
		if it.Action == "" {
			continue // not selected once its version was known
		}
		if r.opts.Log != nil {
			fmt.Fprintln(r.opts.Log, it.String(r.opts.DryRun))
		}
		items = append(items, it)
		if ctx.Err() != nil {
			break
		}
	}
	return items
}

func tagOf(v UpstreamVersion) string {
	if v.Tag != "" {
		return v.Tag
	}
	if v.Version != nil {
		return v.Version.Original()
	}
	return ""
}

// syncUpstreamVersion exports v, packs it into a local layout and hands
// it to syncTag, which vets, attests and copies it as it does a version
// of a registry upstream.
func (r *runner) syncUpstreamVersion(ctx context.Context, stage string, m *dstRepo, v UpstreamVersion) Item {
	it := Item{Repository: v.Name, Tag: tagOf(v)}
	if v.Version != nil {
		it.Version = v.Version.Original()
	}
	dir, err := os.MkdirTemp(stage, "export-")
	if err != nil {
		return it.failed(err)
	}
	defer os.RemoveAll(dir)
	skillDir := filepath.Join(dir, v.Name)
	if err := r.opts.Upstream.Export(ctx, v, skillDir); err != nil {
		if rejected(err) {
			it.Action, it.Check, it.Reason = ActionRejected, "content", err.Error()
			return it
		}
		return it.failed(err)
	}
	s, err := skill.Load(skillDir)
	if err != nil {
		it.Action, it.Check, it.Reason = ActionRejected, "content", err.Error()
		return it
	}
	if s.Frontmatter.Name != v.Name {
		it.Action, it.Check = ActionRejected, "content"
		it.Reason = fmt.Sprintf("its SKILL.md is named %q, the upstream lists it as %q", s.Frontmatter.Name, v.Name)
		return it
	}
	if v.Version == nil {
		fv, err := semver.StrictNewVersion(s.Frontmatter.Version)
		if err != nil {
			it.Action, it.Check = ActionRejected, "version"
			it.Reason = fmt.Sprintf("%s: %s gives none, and its SKILL.md has no semver version field (set version: in SKILL.md, or version the upstream)", ErrNoVersion, r.opts.Upstream)
			return it
		}
		v.Version = fv
		it.Version, it.Tag = fv.Original(), tagOf(v)
		if !r.opts.Config.Selected(v.Name, it.Tag, fv) {
			return Item{}
		}
	}
	if r.vet.policy.Signature != nil {
		// Checked after the export, so that content problems are
		// reported first, as for a registry upstream.
		it.Action, it.Check = ActionRejected, "signature"
		it.Reason = fmt.Sprintf("%s (%s cannot carry a sigstore signature: drop policy.signature for this upstream, or mirror a registry that signs)", ErrUnsigned, r.opts.Upstream)
		return it
	}
	tag := ociref.EscapeTag(v.Version.String())
	p, err := registry.Pack(ctx, skillDir, registry.PackOptions{
		Version: v.Version.String(), Source: v.Source, Revision: v.Revision, TempDir: dir,
	})
	if err != nil {
		it.Action, it.Check, it.Reason = ActionRejected, "content", err.Error()
		return it
	}
	defer p.Close()
	layout, err := registry.ParseReference(ociref.LayoutPrefix + filepath.Join(dir, "layout"))
	if err != nil {
		return it.failed(err)
	}
	if _, err := r.opts.Client.Publish(ctx, p, layout, registry.PublishOptions{Tag: tag}); err != nil {
		return it.failed(fmt.Errorf("stage %s@%s: %w", v.Name, v.Version, err))
	}
	src, err := r.opts.Client.Target(ctx, layout, false)
	if err != nil {
		return it.failed(err)
	}
	out := r.syncTag(ctx, src, m, layout, v.Name, versionTag{tag: tag, v: v.Version}, v.Source)
	out.Tag = tag
	return out
}

// rejected reports whether an export failed on the content itself (a
// policy matter: the next run fails the same way) rather than on the
// way to it.
func rejected(err error) bool {
	for _, k := range []error{registry.ErrIntegrity, registry.ErrUnsafeArchive, registry.ErrNotSkill, wellknown.ErrIntegrity} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}

// ParseUpstream reads an upstream that is not a registry prefix, as
// Config.From or --from give it, and returns nil for a registry prefix
// or an oci: folder:
//
//	git+https://host/repo.git, https://host/repo.git, file:///srv/repo,
//	ssh://…, git://…, git@host:repo, github.com/owner/repo[/folder]
//	    a git repository (source/giturl.Parse; "git+" forces it);
//	https://example.com[/path], wellknown+https://…
//	    a well-known origin (any other https:// URL).
//
// gitc and wk are the clients the upstream will use.
func ParseUpstream(from string, gitc *git.Client, wk *wellknown.Client) (Upstream, error) {
	switch {
	case strings.HasPrefix(from, ociref.LayoutPrefix):
		return nil, nil
	case strings.HasPrefix(from, "wellknown+"):
		return wellKnownUpstream(strings.TrimPrefix(from, "wellknown+"), wk)
	case strings.HasPrefix(from, "git+"):
		return gitUpstream(strings.TrimPrefix(from, "git+"), gitc)
	}
	if u, err := url.Parse(from); err == nil && strings.Contains(from, "://") {
		switch u.Scheme {
		case "file", "ssh", "git":
			return gitUpstream(from, gitc)
		case "https", "http":
			if isGitURL(u) {
				return gitUpstream(from, gitc)
			}
			return wellKnownUpstream(from, wk)
		}
		return nil, fmt.Errorf("%w: from %q: scheme %q (want a registry prefix, a git repository or an https:// origin)", ErrConfig, from, u.Scheme)
	}
	host, _, _ := strings.Cut(from, "/")
	if gitShortHosts[strings.ToLower(host)] || scpWithUser().MatchString(from) {
		return gitUpstream(from, gitc)
	}
	return nil, nil
}

// gitShortHosts are the hosts whose repositories are named without a
// scheme (as source/giturl.Parse reads them); no registry lives there.
var gitShortHosts = map[string]bool{"github.com": true, "gitlab.com": true, "bitbucket.org": true, "codeberg.org": true}

// scpWithUser is git's user@host:path. Without the user it would read
// registry hosts with ports (127.0.0.1:5000/x) as repositories.
var scpWithUser = lazyre.New(`^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^/:]`)

// isGitURL reports whether an https URL names a git repository rather
// than a well-known origin: a forge host, or a path ending in .git.
func isGitURL(u *url.URL) bool {
	p := strings.TrimSuffix(u.Path, "/")
	if i := strings.Index(p, "//"); i >= 0 {
		p = p[:i]
	}
	return gitShortHosts[strings.ToLower(u.Hostname())] || strings.HasSuffix(p, ".git")
}

func gitUpstream(s string, c *git.Client) (Upstream, error) {
	src, err := giturl.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%w: from: %w", ErrConfig, err)
	}
	return &GitUpstream{Client: c, Source: src}, nil
}

func wellKnownUpstream(s string, c *wellknown.Client) (Upstream, error) {
	u, err := discovery.ParseOrigin(s)
	if err != nil {
		return nil, fmt.Errorf("%w: from: %w", ErrConfig, err)
	}
	return &WellKnownUpstream{Client: c, Origin: u.String()}, nil
}
