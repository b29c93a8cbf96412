package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/catalog"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/manager"
	"github.com/urfave/cli/v2"
)

func outdatedCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "outdated",
		Usage: "list locked skills that have newer versions",
		UsageText: `skillpm outdated [options]

WANTED is the newest version skills.yaml allows; LATEST the newest published.

Examples:
  skillpm outdated
  skillpm outdated --json`,
		Flags: projectFlags(),
		Action: func(c *cli.Context) error {
			m, err := openManager(e, c, openOptions{})
			if err != nil {
				return err
			}
			lock, err := m.ReadLock()
			if err != nil {
				return err
			}
			if lock == nil {
				return fmt.Errorf("%s: %w (run 'skillpm install')", m.LockPath(), manager.ErrStaleLock)
			}
			type row struct {
				Name    string `json:"name"`
				Current string `json:"current"`
				Wanted  string `json:"wanted"`
				Latest  string `json:"latest"`
			}
			var rows []row
			for _, s := range lock.Skills {
				vs, err := m.Versions(c.Context, s)
				if err != nil {
					return err
				}
				sort.Sort(semver.Collection(vs))
				cur, _ := semver.NewVersion(s.Version)
				r := row{Name: s.Name, Current: s.Version, Wanted: s.Version, Latest: s.Version}
				w := m.Project.Skills[s.Name]
				for _, v := range vs {
					if v.Prerelease() != "" && !m.Project.Prereleases {
						continue
					}
					r.Latest = v.Original()
					if !s.Requested || w.Constraints().Check(v) {
						r.Wanted = v.Original()
					}
				}
				if cur != nil && (r.Latest != s.Version || r.Wanted != s.Version) {
					rows = append(rows, r)
				}
			}
			if e.json {
				return writeJSON(e.stdout, nonNil(rows))
			}
			if len(rows) == 0 {
				if !e.quiet {
					fmt.Fprintln(e.stdout, "all skills are up to date")
				}
				return nil
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SKILL\tCURRENT\tWANTED\tLATEST")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termLine(r.Name), termLine(r.Current), termLine(r.Wanted), termLine(r.Latest))
			}
			return tw.Flush()
		},
	}
}

func whyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "why",
		Usage: "show why a skill is in the lock: the dependency paths to it",
		UsageText: `skillpm why [options] NAME

Examples:
  skillpm why slugify`,
		Flags: projectFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usageErrorf(c, "why needs one skill name")
			}
			name := c.Args().First()
			m, lock, err := openOffline(e, c)
			if err != nil {
				return err
			}
			if lock == nil || lock.Find(name) == nil {
				return fmt.Errorf("%s is not in %s: %w", name, m.LockPath(), errNotInstalled)
			}
			paths := manager.SolutionFromLock(m.Project, lock).Why(name)
			if e.json {
				return writeJSON(e.stdout, map[string]any{"name": name, "version": lock.Find(name).Version, "paths": paths})
			}
			for _, p := range paths {
				var parts []string
				for i, n := range p {
					if s := lock.Find(n); s != nil {
						n += "@" + s.Version
					}
					if i == 0 {
						n = "skills.yaml > " + n
					}
					parts = append(parts, n)
				}
				fmt.Fprintln(e.stdout, termLine(strings.Join(parts, " > ")))
			}
			return nil
		},
	}
}

func listCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:    "list",
		Aliases: []string{"ls"},
		Usage:   "list the skills agents see, in precedence order",
		UsageText: `skillpm list [options]

Lists every skill folder in the discovery folders (user scope first, then the
project's skills/, .opencode/skills, .claude/skills, .agents/skills,
.wave/skills; later folders override earlier ones), whether skillpm manages
it, and what it shadows.

Examples:
  skillpm list
  skillpm list --all --json`,
		Flags: append(projectFlags(),
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "also list shadowed skills"},
		),
		Action: func(c *cli.Context) error {
			dir, err := projectDir(c)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			cfg, err := e.userConfig()
			if err != nil {
				return err
			}
			dirs := install.SearchDirs(dir, home)
			for i := range dirs {
				dirs[i].Bounds.Allow = cfg.AllowTargetOutside
			}
			all := install.Discover(dirs)
			entries := all
			if !c.Bool("all") {
				entries = install.Effective(all)
			}
			// The catalog's health check discovers the same folders
			// when they are read the same way (no target outside the
			// project allowed, no folder listed twice): reuse them.
			var discovered []install.Entry
			if len(cfg.AllowTargetOutside) == 0 && len(agent.Dirs(dir, home)) == len(dirs) {
				discovered = append(make([]install.Entry, 0, len(all)), all...)
			}
			idx, _ := indexPath()
			warn(e, catalog.ListHealth(c.Context, dir, home, idx, discovered))
			if e.json {
				return writeJSON(e.stdout, nonNil(entries))
			}
			byPath := make(map[string]install.Entry, len(all))
			for _, en := range all {
				byPath[en.Path] = en
			}
			tw := newTable(e.stdout, 0, 4, 2)
			fmt.Fprintln(tw, "SKILL\tVERSION\tSOURCE\tFOLDER\tNOTE")
			for _, en := range entries {
				src, v := "hand-authored", en.Version
				if en.Managed {
					src = "skillpm"
				}
				if v == "" {
					v = "-"
				}
				note := ""
				switch {
				case en.ShadowedBy != "":
					note = "shadowed by " + relTo(dir, en.ShadowedBy)
				case len(en.Shadows) > 0:
					note = shadowNote(dir, en, byPath)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termLine(en.Name), termLine(v), src, termLine(en.Root.Rel), termLine(note))
			}
			return tw.Flush()
		},
	}
}

func relTo(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	if home, err := os.UserHomeDir(); err == nil {
		if r, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(r, "..") {
			return "~/" + r
		}
	}
	return p
}

func statusCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show managed skills that were edited, are missing, or differ from the lock",
		UsageText: `skillpm status [options]

Examples:
  skillpm status
  skillpm status --json`,
		Flags: projectFlags(),
		Action: func(c *cli.Context) error {
			m, lock, err := openOffline(e, c)
			if err != nil {
				return err
			}
			st, err := install.Status(m.TargetDirs(), lock, m.StatusOwner(), m.Bounds())
			if err != nil {
				return err
			}
			if e.json {
				return writeJSON(e.stdout, map[string]any{"fresh": m.Fresh(lock), "skills": nonNil(st)})
			}
			if lock != nil && !m.Fresh(lock) {
				fmt.Fprintf(e.stdout, "skills.lock is out of date with skills.yaml: run 'skillpm install'\n")
			}
			clean := 0
			for _, s := range st {
				if s.State == install.StateOK {
					clean++
					continue
				}
				fmt.Fprintf(e.stdout, "%-9s %s (%s)\n", s.State, termLine(filepath.Join(relTo(m.Project.Dir(), s.Target), s.Name)), termLine(s.Detail))
			}
			if !e.quiet {
				fmt.Fprintf(e.stdout, "%d managed skills as installed, %d need attention\n", clean, len(st)-clean)
			}
			return nil
		},
	}
}

// shadowNote says what an effective skill overrides. The copies skillpm
// installed of the same version into other targets are "also in", not
// shadowed: agents see the same skill either way.
func shadowNote(dir string, en install.Entry, byPath map[string]install.Entry) string {
	var shadows, twins []string
	for _, p := range en.Shadows {
		if o, ok := byPath[p]; ok && en.Managed && o.Managed && o.Version == en.Version {
			twins = append(twins, o.Root.Rel)
		} else {
			shadows = append(shadows, relTo(dir, p))
		}
	}
	var parts []string
	if len(shadows) > 0 {
		parts = append(parts, "shadows "+strings.Join(shadows, ", "))
	}
	if len(twins) > 0 {
		parts = append(parts, "also in "+strings.Join(twins, ", "))
	}
	return strings.Join(parts, "; ")
}
