package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/source/wellknown"
)

func exportCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "export",
		Usage: "write skills in formats other clients read",
		UsageText: `skillpm export well-known DIR [SKILL_FOLDER...]

Examples:
  skillpm export well-known public ./skills/pdf ./skills/docx
  skillpm export well-known public`,
		Subcommands: []*cli.Command{exportWellKnownCommand(e)},
	}
}

func exportWellKnownCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "well-known",
		Usage: "write a static /.well-known/agent-skills/ tree (discovery index 0.2.0 and archives)",
		UsageText: `skillpm export well-known [options] DIR [SKILL_FOLDER...]

Writes DIR/.well-known/agent-skills/index.json in the Agent Skills
discovery index shape (` + wellknown.SchemaURI + `)
and one artifact per skill beside it: <name>/SKILL.md (type skill-md) for a
skill that is a lone SKILL.md, else <name>.tar.gz (type archive), a
reproducible tar+gzip of the folder with SKILL.md at its root. Each entry
carries the sha256 digest of its artifact and the frontmatter's version.
URLs are relative, so DIR can be served from any origin or path; the
'skills' CLI, OpenCode and 'skillpm add https://ORIGIN' install from it.

Without SKILL_FOLDER arguments, the project's installed skills (those the
agents see in the project's discovery folders; -g: the user scope's) are
exported. The tree is replaced whole: a failed export leaves the old one.

Examples:
  skillpm export well-known public ./skills/pdf ./skills/docx
  skillpm export well-known public                 # the project's skills
  skillpm export well-known --archive-all --json public ./skills/*`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "project", Aliases: []string{"C"}, Usage: "export the installed skills of the project in `DIR`"},
			&cli.BoolFlag{Name: "global", Aliases: []string{"g"}, Usage: "export the user scope's installed skills"},
			&cli.BoolFlag{Name: "archive-all", Usage: "write every skill as a .tar.gz archive, even a lone SKILL.md"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 1 {
				return command.UsageErrorf(c, "export well-known needs the output folder DIR")
			}
			out := c.Args().First()
			dirs := c.Args().Slice()[1:]
			if len(dirs) == 0 {
				var err error
				if dirs, err = installedSkillDirs(c); err != nil {
					return err
				}
				if len(dirs) == 0 {
					return command.UsageErrorf(c, "no installed skills to export; name skill folders: skillpm export well-known %s ./skills/NAME", out)
				}
			}
			idx, err := wellknown.Write(c.Context, out, dirs, wellknown.WriteOptions{ArchiveAll: c.Bool("archive-all")})
			if err != nil {
				return err
			}
			if e.JSON {
				return command.WriteJSON(e.Stdout, idx)
			}
			if e.Quiet {
				return nil
			}
			tw := command.NewTable(e.Stdout, 0, 4, 2)
			fmt.Fprintln(tw, "SKILL\tTYPE\tFILE\tDIGEST")
			for _, s := range idx.Skills {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", command.TermLine(s.Name), s.Type, command.TermLine(s.URL), s.Digest)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(e.Stdout, "wrote %s (%d skills)\n", command.TermLine(idx.URL), len(idx.Skills))
			return nil
		},
	}
}

// installedSkillDirs are the effective skill folders of the project's
// discovery folders, or the user scope's with -g.
func installedSkillDirs(c *cli.Context) ([]string, error) {
	var (
		dirs    []install.Dir
		project string
	)
	if c.Bool("global") {
		home, err := os.UserHomeDir()
		if err != nil {
			return nil, err
		}
		dirs = install.SearchDirs("", home)
	} else {
		p, err := command.ProjectDir(c)
		if err != nil {
			return nil, err
		}
		dirs, project = install.SearchDirs(p, ""), p
	}
	var out []string
	for _, en := range install.Effective(install.Discover(dirs)) {
		p := filepath.Clean(en.Path)
		if project != "" {
			if err := insideProject(project, p); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// insideProject refuses a discovered skill folder that leads out of the
// project: a checkout can carry a link in its discovery folders to the
// user's own skills, which an export would then publish. Named on the
// command line, such a folder is exported: the user chose it.
func insideProject(project, dir string) error {
	root, err := filepath.EvalSymlinks(project)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(rel) {
		return fmt.Errorf("%s: %w: it leads to %s, outside the project; name the folder to export it (skillpm export well-known DIR %s)", dir, install.ErrLinkedSkill, real, dir)
	}
	return nil
}
