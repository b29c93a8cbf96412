package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/giturl"
	"github.com/skillpm/skillpm/source/local"
	"github.com/skillpm/skillpm/source/wellknown"
	"github.com/skillpm/skillpm/source/wellknown/discovery"
	"github.com/urfave/cli/v2"
)

// setSources gives m the kinds of source skills.yaml may name besides
// registries, and the cache they are packed into. The git and
// well-known clients are sync's (sourceClients): the user config's
// limits, timeouts and plain_http, caches under skillpm's cache.
func setSources(e *command.Env, ro command.RegistryOptions, m *manager.Manager) error {
	gc, wk, err := sourceClients(e, ro, "")
	if err != nil {
		return err
	}
	dir, err := command.CacheDir()
	if err != nil {
		return err
	}
	cfg, err := e.UserConfig()
	if err != nil {
		return err
	}
	lim := gc.Limits
	m.Sources = map[string]source.Source{
		project.KindGit:       &git.Kind{Client: gc, LocalRoots: cfg.AllowLocalGit},
		project.KindLocal:     &local.Kind{Limits: lim},
		project.KindWellKnown: &wellknown.Kind{Client: wk},
	}
	// The packed layouts are read back through a client of their own:
	// oci: layouts only, no network, no registry cache.
	m.Store = &source.Store{Dir: filepath.Join(dir, "sources"), Client: registry.NewClient(registry.Options{Limits: lim}), Limits: lim}
	return nil
}

// isSourceArg reports whether an 'add' argument names a git repository,
// a well-known origin or a local folder rather than a registry skill.
func isSourceArg(arg string) bool {
	if isLocalArg(arg) {
		return true
	}
	for _, p := range []string{"git://", "ssh://", "file://", "git@", "git+", "wellknown+", "https://", "http://"} {
		if strings.HasPrefix(arg, p) {
			return true
		}
	}
	host, _, ok := strings.Cut(arg, "/")
	return ok && isForge(host)
}

// Which source an https:// argument of 'add' names (see README, Sources):
//
//   - git+https://… is git, wellknown+https://… is well-known, always;
//   - an https:// URL is git when it evidently names a repository: a
//     forge's host (github.com, gitlab.com, bitbucket.org, codeberg.org),
//     a path segment ending in .git, a "//" folder or a "#ref";
//   - any other https:// URL is an origin: well-known when it serves a
//     discovery index (current or legacy path), else it is read as git
//     (a self-hosted forge's repository without .git).
const (
	argGit       = "git"
	argWellKnown = "wellknown"
	argProbe     = "probe" // an https:// URL to try as an origin first
)

// sourceArgKind classifies a non-local source argument, and returns it
// without its git+ or wellknown+ prefix.
func sourceArgKind(arg string) (kind, rest string) {
	if r, ok := strings.CutPrefix(arg, "wellknown+"); ok {
		return argWellKnown, r
	}
	if r, ok := strings.CutPrefix(arg, "git+"); ok {
		return argGit, r
	}
	scheme, rest, ok := strings.Cut(arg, "://")
	if !ok || (scheme != "https" && scheme != "http") {
		return argGit, arg
	}
	if strings.Contains(rest, "#") {
		return argGit, arg
	}
	host, p, _ := strings.Cut(rest, "/")
	if isForge(host) || strings.Contains(p, "//") {
		return argGit, arg
	}
	for _, seg := range strings.Split(p, "/") {
		seg, _, _ = strings.Cut(seg, "@")
		if strings.HasSuffix(seg, ".git") {
			return argGit, arg
		}
	}
	return argProbe, arg
}

func isForge(host string) bool {
	switch strings.ToLower(host) {
	case "github.com", "gitlab.com", "bitbucket.org", "codeberg.org":
		return true
	}
	return false
}

func isLocalArg(arg string) bool {
	return arg == "." || strings.HasPrefix(arg, "./") || strings.HasPrefix(arg, "../") || strings.HasPrefix(arg, "/") || filepath.IsAbs(arg)
}

// sourceWants turns one 'add' argument that names a source into the
// skills to add: the folder it names, or the skills of a repository or
// an origin picked with --skill or --all.
func sourceWants(ctx context.Context, c *cli.Context, e *command.Env, m *manager.Manager, arg string) ([]manager.Want, error) {
	if isLocalArg(arg) {
		return localWant(c, m, arg)
	}
	kind, rest := sourceArgKind(arg)
	switch kind {
	case argWellKnown:
		return wellKnownWants(ctx, c, e, m, rest)
	case argProbe:
		ws, err := wellKnownWants(ctx, c, e, m, rest)
		if !errors.Is(err, errNoIndex) {
			return ws, err
		}
		ws, gerr := gitWants(ctx, c, e, m, rest)
		if gerr != nil {
			return nil, fmt.Errorf("%w (and %s serves no well-known index: %v)", gerr, giturl.Redact(rest), err)
		}
		return ws, nil
	}
	return gitWants(ctx, c, e, m, rest)
}

// errNoIndex marks an origin that serves no discovery index, so that
// 'add' reads the URL as a git repository instead.
var errNoIndex = errors.New("no well-known index")

// wellKnownWants lists the skills of a well-known origin's index and
// picks with --skill or --all.
func wellKnownWants(ctx context.Context, c *cli.Context, e *command.Env, m *manager.Manager, arg string) ([]manager.Want, error) {
	u, err := discovery.ParseOrigin(arg)
	if err != nil {
		return nil, command.UsageErrorf(c, "%v", err)
	}
	origin := u.String()
	se := source.Entry{Kind: project.KindWellKnown, Location: origin, Repository: "wellknown+" + origin}
	names, err := m.ListSkills(ctx, se)
	if err != nil {
		if errors.Is(err, wellknown.ErrNotFound) {
			return nil, fmt.Errorf("add %s: %w: %w", u.Redacted(), errNoIndex, err)
		}
		return nil, fmt.Errorf("add %s: %w", u.Redacted(), err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("add %s: its well-known index lists no skill: %w", u.Redacted(), source.ErrNotFound)
	}
	picked, err := pickSkills(c, e, arg, u.Redacted(), names, names)
	if err != nil {
		return nil, err
	}
	out := make([]manager.Want, 0, len(picked))
	for _, n := range picked {
		out = append(out, manager.Want{Name: n, Source: &project.Want{WellKnown: origin}})
	}
	return out, nil
}

// pickSkills picks, from the skills a source holds (names, in listing
// order, each described by listing), the ones --skill or --all ask
// for; a source of one skill needs neither. Without them, on a terminal
// the user picks from a numbered list (askSkills); without one, the
// skills are listed and add fails (exit 2).
func pickSkills(c *cli.Context, e *command.Env, arg, where string, names, listing []string) ([]string, error) {
	picked := c.StringSlice("skill")
	switch {
	case c.Bool("all"):
		return names, nil
	case len(picked) == 0 && len(names) == 1:
		return names, nil
	case len(picked) == 0 && e.Askable():
		return askSkills(c, e, where, names, listing)
	case len(picked) == 0:
		return nil, command.UsageErrorf(c, "%s holds %d skills: %s; pick with --skill NAME (repeatable) or --all", where, len(names), strings.Join(listing, ", "))
	}
	for _, n := range picked {
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("add %s: %s has no skill %q: %w; it holds: %s", giturl.Redact(arg), where, n, source.ErrNotFound, strings.Join(listing, ", "))
		}
	}
	return picked, nil
}

// gitWants lists the skills of a git repository (or its folder) and
// picks with --skill or --all.
func gitWants(ctx context.Context, c *cli.Context, e *command.Env, m *manager.Manager, arg string) ([]manager.Want, error) {
	src, err := giturl.Parse(arg)
	if err != nil {
		return nil, command.UsageErrorf(c, "%v", err)
	}
	se := source.Entry{Kind: project.KindGit, Location: src.URL, Path: src.Subdir, Ref: src.Ref, Repository: "git+" + src.URL}
	dirs, err := m.ListSkills(ctx, se)
	if err != nil {
		return nil, fmt.Errorf("add %s: %w", giturl.Redact(arg), err)
	}
	where := giturl.Redact(src.URL)
	if src.Subdir != "" {
		where += "//" + src.Subdir
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("add %s: %s holds no skill (no folder with a SKILL.md): %w; name a repository or folder that holds skills", giturl.Redact(arg), where, source.ErrNotFound)
	}
	dirOf := map[string]string{}
	var names, listing []string
	for _, d := range dirs {
		n := path.Base(d)
		if d == "." {
			n = strings.TrimSuffix(path.Base(strings.TrimSuffix(src.URL, "/")), ".git")
		}
		if _, dup := dirOf[n]; !dup {
			names = append(names, n)
		}
		dirOf[n] = d
		listing = append(listing, fmt.Sprintf("%s (%s)", n, d))
	}
	picked, err := pickSkills(c, e, arg, where, names, listing)
	if err != nil {
		return nil, err
	}
	var out []manager.Want
	for _, n := range picked {
		d := dirOf[n]
		if !skill.ValidName(n) {
			return nil, fmt.Errorf("add %s: the folder %s is not a valid skill name: %w", giturl.Redact(arg), d, source.ErrNotSkill)
		}
		w := project.Want{Git: gitLocation(arg, src), Ref: src.Ref}
		if d != "." {
			w.Path = d
		}
		out = append(out, manager.Want{Name: n, Source: &w})
	}
	return out, nil
}

// gitLocation is the repository as skills.yaml should carry it: the
// short form as typed (github.com/owner/repo), else the parsed URL.
func gitLocation(arg string, src giturl.Source) string {
	host, rest, _ := strings.Cut(arg, "/")
	if isForge(host) && !strings.Contains(arg, "://") {
		parts := strings.SplitN(strings.SplitN(rest, "@", 2)[0], "/", 3)
		if len(parts) >= 2 {
			return host + "/" + parts[0] + "/" + strings.TrimSuffix(parts[1], ".git")
		}
	}
	return src.URL
}

func localWant(c *cli.Context, m *manager.Manager, arg string) ([]manager.Want, error) {
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(m.Project.Dir(), abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, command.UsageErrorf(c, "%s is outside the project %s: a local skill must be a folder inside the project", arg, m.Project.Dir())
	}
	s, err := skill.Load(abs)
	if err != nil {
		if errors.Is(err, skill.ErrNotSkill) {
			return nil, fmt.Errorf("add %s: %w", arg, err)
		}
		return nil, fmt.Errorf("add %s: %w", arg, err)
	}
	name := s.Name()
	if !skill.ValidName(name) {
		name = filepath.Base(abs)
	}
	w := project.Want{Local: "./" + filepath.ToSlash(rel)}
	return []manager.Want{{Name: name, Source: &w}}, nil
}
