package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

func initCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create a new skill folder that passes 'skillpm lint --strict'",
		UsageText: `skillpm init [options] [DIR]

DIR defaults to the current folder; the skill is named after it.

With --tool, the tool is declared in SKILL.md's frontmatter (the Universal
format, names with hyphens) or in a tools.json beside it (the Skill Tools
format, names with underscores): --format picks, and without it the tool's
name does. A folder that holds skills.yaml or .git is a project, not a
skill: init refuses to turn it into one without --force.

Examples:
  skillpm init pdf-tools
  skillpm init pdf-tools --description "Extract text from PDFs. Use when the user mentions PDFs."
  skillpm init pdf-tools --tool extract-text --runtime python
  skillpm init demo --tool count_words --runtime node    # tools.json (Skill Tools)
  skillpm init --tool word-count --format skill-tools --runtime bash`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "skill `NAME` (default: the folder name)"},
			&cli.StringFlag{Name: "description", Usage: "what the skill does and when to use it"},
			&cli.StringFlag{Name: "version", Value: "0.1.0", Usage: "initial semver `VERSION`"},
			&cli.StringFlag{Name: "tool", Usage: "add a tool called `NAME` with a handler script"},
			&cli.StringFlag{Name: "runtime", Value: "python", Usage: "handler `RUNTIME` for --tool: python, node or bash"},
			&cli.StringFlag{Name: "format", Usage: "declare --tool in `FORMAT`: universal (SKILL.md frontmatter) or skill-tools (tools.json); default: what the tool's name fits"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite an existing SKILL.md; make a skill of a folder that holds skills.yaml or .git"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return command.UsageErrorf(c, "init takes at most one folder, got %d", c.NArg())
			}
			o := initOptions{dir: c.Args().First(), scaffold: skill.ScaffoldOptions{
				Name: c.String("name"), Description: c.String("description"), Version: c.String("version"),
				Tool: c.String("tool"), Runtime: c.String("runtime"), Format: skill.ToolFormat(c.String("format")),
				Force: c.Bool("force"),
			}}
			if o.dir == "" {
				o.dir = "."
			}
			if c.IsSet("runtime") && !c.IsSet("tool") {
				return command.UsageErrorf(c, "--runtime needs --tool NAME")
			}
			if c.IsSet("format") && !c.IsSet("tool") {
				return command.UsageErrorf(c, "--format needs --tool NAME")
			}
			files, err := runInit(o)
			if err != nil {
				return err
			}
			return printInit(e, o.dir, files)
		},
	}
}

// initOptions are init's flags and argument.
type initOptions struct {
	dir string // the folder to scaffold; "." when none is given
	// scaffold is what to write; its Force also lets init make a skill
	// of a project folder (refuseProjectFolder).
	scaffold skill.ScaffoldOptions
}

// runInit scaffolds the skill o asks for and returns the files written,
// relative to o.dir.
func runInit(o initOptions) ([]string, error) {
	if !o.scaffold.Force {
		if err := refuseProjectFolder(o.dir); err != nil {
			return nil, err
		}
	}
	files, err := skill.Scaffold(o.dir, o.scaffold)
	if err != nil {
		return nil, &command.UsageError{Msg: err.Error(), Hint: "see 'skillpm init --help'"}
	}
	return files, nil
}

// printInit lists the files init created and what to do next.
func printInit(e *command.Env, dir string, files []string) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"dir": dir, "files": files})
	}
	if !e.Quiet {
		for _, f := range files {
			fmt.Fprintf(e.Stdout, "created %s\n", filepath.Join(dir, f))
		}
		fmt.Fprintf(e.Stdout, "next: edit %s, then run 'skillpm lint %s'\n", filepath.Join(dir, skill.FileName), dir)
	}
	return nil
}

// refuseProjectFolder refuses to scaffold into a folder that is a project
// (skills.yaml) or a repository root (.git): its SKILL.md would make the
// whole project one skill, which is rarely what was meant.
func refuseProjectFolder(dir string) error {
	for _, marker := range []string{project.FileName, ".git"} {
		if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil {
			abs, _ := filepath.Abs(dir)
			return &command.UsageError{Msg: fmt.Sprintf("%s holds %s: it is a project, and init would make the whole folder one skill", abs, marker),
				Hint: "create the skill in a subfolder ('skillpm init skills/NAME'), or pass --force to make this folder a skill",
			}
		}
	}
	return nil
}
