package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

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
			oo, err := readOpenOptions(c)
			if err != nil {
				return err
			}
			m, err := openManager(e, oo)
			if err != nil {
				return err
			}
			rows, err := m.Outdated(c.Context)
			if err != nil {
				return err
			}
			return printOutdated(e, rows)
		},
	}
}

// printOutdated prints outdated's table, or its JSON rows.
func printOutdated(e *env, rows []manager.OutdatedSkill) error {
	type row struct {
		Name    string `json:"name"`
		Current string `json:"current"`
		Wanted  string `json:"wanted"`
		Latest  string `json:"latest"`
	}
	if e.json {
		out := make([]row, 0, len(rows))
		for _, r := range rows {
			out = append(out, row(r))
		}
		return writeJSON(e.stdout, out)
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
			po, err := readProjectOptions(c)
			if err != nil {
				return err
			}
			m, err := openOffline(e, po)
			if err != nil {
				return err
			}
			res, err := m.Why(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			return printWhy(e, res)
		},
	}
}

// printWhy prints each dependency path as "skills.yaml > a@1.0.0 > b@2.1.0".
func printWhy(e *env, res *manager.WhyResult) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"name": res.Name, "version": res.Version, "paths": res.Paths})
	}
	for _, p := range res.Paths {
		var parts []string
		for i, n := range p {
			if s := res.Lock.Find(n); s != nil {
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
			po, err := readProjectOptions(c)
			if err != nil {
				return err
			}
			m, err := openOffline(e, po)
			if err != nil {
				return err
			}
			res, err := m.Status(c.Context)
			if err != nil {
				return err
			}
			return printStatus(e, m.Project.Dir(), res)
		},
	}
}

// printStatus prints the skills that need attention, folders relative to
// the project folder dir, and a count.
func printStatus(e *env, dir string, res *manager.StatusResult) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"fresh": res.Fresh, "skills": nonNil(res.Skills)})
	}
	if res.Lock != nil && !res.Fresh {
		fmt.Fprintf(e.stdout, "skills.lock is out of date with skills.yaml: run 'skillpm install'\n")
	}
	clean := 0
	for _, s := range res.Skills {
		if s.State == install.StateOK {
			clean++
			continue
		}
		fmt.Fprintf(e.stdout, "%-9s %s (%s)\n", s.State, termLine(filepath.Join(relTo(dir, s.Target), s.Name)), termLine(s.Detail))
	}
	if !e.quiet {
		fmt.Fprintf(e.stdout, "%d managed skills as installed, %d need attention\n", clean, len(res.Skills)-clean)
	}
	return nil
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
