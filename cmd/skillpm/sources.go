package main

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/git"
	"github.com/skillpm/skillpm/source/local"
	"github.com/urfave/cli/v2"
)

// setSources gives m the kinds of source skills.yaml may name besides
// registries, and the cache they are packed into. The git client's stall
// timeout is the user config's (timeouts.stall).
func setSources(e *env, c *cli.Context, m *manager.Manager) error {
	cfg, err := e.userConfig()
	if err != nil {
		return err
	}
	tos, err := timeouts(c, cfg.Timeouts)
	if err != nil {
		return err
	}
	dir, err := cacheDir()
	if err != nil {
		return err
	}
	lim := registry.Limits{MaxFiles: cfg.Limits.MaxFiles, MaxBytes: cfg.Limits.MaxBytes, MaxFileSize: cfg.Limits.MaxFileSize}
	gc := &git.Client{CacheDir: filepath.Join(dir, "git"), Stall: tos.Stall, Limits: lim}
	m.Sources = map[string]source.Source{
		project.KindGit:   &git.Kind{Client: gc},
		project.KindLocal: &local.Kind{Limits: lim},
	}
	// The packed layouts are read back through a client of their own:
	// oci: layouts only, no network, no registry cache.
	m.Store = &source.Store{Dir: filepath.Join(dir, "sources"), Client: registry.NewClient(registry.Options{Limits: lim}), Limits: lim}
	return nil
}

// isSourceArg reports whether an 'add' argument names a git repository
// or a local folder rather than a registry skill.
func isSourceArg(arg string) bool {
	if isLocalArg(arg) {
		return true
	}
	for _, p := range []string{"git://", "ssh://", "file://", "git@"} {
		if strings.HasPrefix(arg, p) {
			return true
		}
	}
	if strings.HasPrefix(arg, "https://") || strings.HasPrefix(arg, "http://") {
		// An https origin is a well-known index unless it looks like a
		// repository: a .git path, a "//" folder, or a forge's host.
		rest := arg[strings.Index(arg, "://")+3:]
		host, _, _ := strings.Cut(rest, "/")
		return strings.Contains(rest, ".git") || strings.Contains(rest, "//") || isForge(host)
	}
	host, _, ok := strings.Cut(arg, "/")
	return ok && isForge(host)
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
// skills to add: the folder it names, or the skills of a repository
// picked with --skill or --all.
func sourceWants(ctx context.Context, c *cli.Context, m *manager.Manager, arg string) ([]manager.Want, error) {
	if isLocalArg(arg) {
		return localWant(c, m, arg)
	}
	src, err := git.Parse(arg)
	if err != nil {
		return nil, usageErrorf(c, "%v", err)
	}
	e := source.Entry{Kind: project.KindGit, Location: src.URL, Path: src.Subdir, Ref: src.Ref, Repository: "git+" + src.URL}
	dirs, err := m.ListSkills(ctx, e)
	if err != nil {
		return nil, fmt.Errorf("add %s: %w", git.Redact(arg), err)
	}
	where := git.Redact(src.URL)
	if src.Subdir != "" {
		where += "//" + src.Subdir
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("add %s: %s holds no skill (no folder with a SKILL.md): %w; name a repository or folder that holds skills", git.Redact(arg), where, source.ErrNotFound)
	}
	names := map[string]string{}
	var listing []string
	for _, d := range dirs {
		n := path.Base(d)
		if d == "." {
			n = strings.TrimSuffix(path.Base(strings.TrimSuffix(src.URL, "/")), ".git")
		}
		names[n] = d
		listing = append(listing, fmt.Sprintf("%s (%s)", n, d))
	}
	picked := c.StringSlice("skill")
	switch {
	case c.Bool("all"):
		picked = nil
		for _, d := range dirs {
			for n, dd := range names {
				if dd == d {
					picked = append(picked, n)
				}
			}
		}
	case len(picked) == 0 && len(dirs) == 1:
		for n := range names {
			picked = []string{n}
		}
	case len(picked) == 0:
		return nil, usageErrorf(c, "%s holds %d skills: %s; pick with --skill NAME (repeatable) or --all", where, len(dirs), strings.Join(listing, ", "))
	}
	var out []manager.Want
	for _, n := range picked {
		d, ok := names[n]
		if !ok {
			return nil, fmt.Errorf("add %s: %s has no skill %q: %w; it holds: %s", git.Redact(arg), where, n, source.ErrNotFound, strings.Join(listing, ", "))
		}
		if !skill.ValidName(n) {
			return nil, fmt.Errorf("add %s: the folder %s is not a valid skill name: %w", git.Redact(arg), d, source.ErrNotSkill)
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
func gitLocation(arg string, src git.Source) string {
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
		return nil, usageErrorf(c, "%s is outside the project %s: a local skill must be a folder inside the project", arg, m.Project.Dir())
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
