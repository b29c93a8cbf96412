package main

import (
	"fmt"
	"path/filepath"

	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

func initCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "init",
		Usage: "create a new skill folder that passes 'skillpm lint --strict'",
		UsageText: `skillpm init [options] [DIR]

DIR defaults to the current folder; the skill is named after it.

Examples:
  skillpm init pdf-tools
  skillpm init pdf-tools --description "Extract text from PDFs. Use when the user mentions PDFs."
  skillpm init pdf-tools --tool extract-text --runtime python
  skillpm init --tool word-count --runtime node`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "name", Usage: "skill `NAME` (default: the folder name)"},
			&cli.StringFlag{Name: "description", Usage: "what the skill does and when to use it"},
			&cli.StringFlag{Name: "version", Value: "0.1.0", Usage: "initial semver `VERSION`"},
			&cli.StringFlag{Name: "tool", Usage: "add a tool called `NAME` with a handler script"},
			&cli.StringFlag{Name: "runtime", Value: "python", Usage: "handler `RUNTIME` for --tool: python, node or bash"},
			&cli.BoolFlag{Name: "force", Usage: "overwrite an existing SKILL.md"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return usageErrorf(c, "init takes at most one folder, got %d", c.NArg())
			}
			dir := c.Args().First()
			if dir == "" {
				dir = "."
			}
			if c.IsSet("runtime") && !c.IsSet("tool") {
				return usageErrorf(c, "--runtime needs --tool NAME")
			}
			files, err := skill.Scaffold(dir, skill.ScaffoldOptions{
				Name: c.String("name"), Description: c.String("description"), Version: c.String("version"),
				Tool: c.String("tool"), Runtime: c.String("runtime"), Force: c.Bool("force"),
			})
			if err != nil {
				return &usageError{msg: err.Error(), hint: "see 'skillpm init --help'"}
			}
			if e.json {
				return writeJSON(e.stdout, map[string]any{"dir": dir, "files": files})
			}
			if !e.quiet {
				for _, f := range files {
					fmt.Fprintf(e.stdout, "created %s\n", filepath.Join(dir, f))
				}
				fmt.Fprintf(e.stdout, "next: edit %s, then run 'skillpm lint %s'\n", filepath.Join(dir, skill.FileName), dir)
			}
			return nil
		},
	}
}
