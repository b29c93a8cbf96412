package command

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/catalog"
	"github.com/skillpm/skillpm/install"
	"github.com/urfave/cli/v2"
)

func ListCommand(e *Env) *cli.Command {
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
		Flags: append(ProjectFlags(),
			&cli.BoolFlag{Name: "all", Aliases: []string{"a"}, Usage: "also list shadowed skills"},
		),
		Action: func(c *cli.Context) error {
			dir, err := ProjectDir(c)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			cfg, err := e.UserConfig()
			if err != nil {
				return err
			}
			dirs := install.SearchDirs(dir, home)
			for i := range dirs {
				dirs[i].Bounds.Allow = cfg.AllowTargetOutside
			}
			all := install.Discover(dirs)
			var entries []*install.Entry
			if c.Bool("all") {
				entries = make([]*install.Entry, len(all))
				for i := range all {
					entries[i] = &all[i]
				}
			} else {
				entries = install.Effective(all)
			}
			// The catalog's health check discovers the same folders
			// when they are read the same way (no target outside the
			// project allowed, no folder listed twice): reuse them (it
			// only reads them).
			var discovered []install.Entry
			if len(cfg.AllowTargetOutside) == 0 && len(agent.Dirs(dir, home)) == len(dirs) {
				discovered = all
			}
			idx, _ := IndexPath()
			warn(e, catalog.ListHealth(c.Context, dir, home, idx, discovered))
			if e.JSON {
				return WriteJSON(e.Stdout, NonNil(entries))
			}
			// The entries by path, for the notes of skills that shadow
			// others: by pointer (an Entry is large), and only if any does.
			var byPath map[string]*install.Entry
			for _, en := range entries {
				if len(en.Shadows) > 0 {
					byPath = make(map[string]*install.Entry, len(all))
					for i := range all {
						byPath[all[i].Path] = &all[i]
					}
					break
				}
			}
			cells := make([]string, 0, 5*(len(entries)+1))
			cells = append(cells, "SKILL", "VERSION", "SOURCE", "FOLDER", "NOTE")
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
					note = "shadowed by " + RelTo(dir, en.ShadowedBy)
				case len(en.Shadows) > 0:
					note = shadowNote(dir, en, byPath)
				}
				cells = append(cells, TermLine(en.Name), TermLine(v), src, TermLine(en.Root.Rel), TermLine(note))
			}
			return writeColumns(e.Stdout, 5, cells)
		},
	}
}

func RelTo(base, p string) string {
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

// shadowNote says what an effective skill overrides. The copies skillpm
// installed of the same version into other targets are "also in", not
// shadowed: agents see the same skill either way.
func shadowNote(dir string, en *install.Entry, byPath map[string]*install.Entry) string {
	var shadows, twins []string
	for _, p := range en.Shadows {
		if o, ok := byPath[p]; ok && en.Managed && o.Managed && o.Version == en.Version {
			twins = append(twins, o.Root.Rel)
		} else {
			shadows = append(shadows, RelTo(dir, p))
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
