package main

import (
	"fmt"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

type lintOptions struct {
	paths   []string
	profile skill.Profile
	strict  bool
	rules   bool
}

func lintCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "lint",
		Usage: "check skill folders against the Agent Skills, Skill Tools and Universal specs",
		UsageText: `skillpm lint [options] [PATH...]

PATH is a skill folder (it holds SKILL.md) or a folder of skills, searched
recursively. The default is the current folder.

Examples:
  skillpm lint                          # the skill in the current folder
  skillpm lint .claude/skills           # every skill under a folder
  skillpm lint --strict --json pdf-tools
  skillpm lint --profile universal pdf-tools
  skillpm lint --rules                  # list every rule ID`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "profile", Usage: "lint against `PROFILE`: agent-skills, skill-tools or universal (default: inferred per skill)"},
			&cli.BoolFlag{Name: "strict", Usage: "treat warnings as errors"},
			&cli.BoolFlag{Name: "rules", Usage: "list the lint rules and exit"},
		},
		Action: func(c *cli.Context) error {
			p, err := skill.ParseProfile(c.String("profile"))
			if err != nil {
				return command.UsageErrorf(c, "%v", err)
			}
			opts := lintOptions{paths: c.Args().Slice(), profile: p, strict: c.Bool("strict"), rules: c.Bool("rules")}
			if len(opts.paths) == 0 {
				opts.paths = []string{"."}
			}
			return runLint(e, opts)
		},
	}
}

func runLint(e *command.Env, opts lintOptions) error {
	if opts.rules {
		return printRules(e)
	}
	var dirs []string
	for _, p := range opts.paths {
		found, err := skill.Find(p)
		if err != nil {
			return err
		}
		dirs = append(dirs, found...)
	}
	l, err := skill.NewLinter()
	if err != nil {
		return err
	}
	var results []*skill.Result
	errs, warns := 0, 0
	for _, d := range dirs {
		r := l.Lint(d, skill.LintOptions{Profile: opts.profile, Strict: opts.strict})
		results = append(results, r)
		errs += r.Errors()
		warns += r.Warnings()
	}
	if e.JSON {
		type jsonResult struct {
			*skill.Result
			Errors   int `json:"errors"`
			Warnings int `json:"warnings"`
		}
		out := struct {
			Skills   []jsonResult `json:"skills"`
			Errors   int          `json:"errors"`
			Warnings int          `json:"warnings"`
		}{Skills: []jsonResult{}, Errors: errs, Warnings: warns}
		for _, r := range results {
			if r.Diagnostics == nil {
				r.Diagnostics = []skill.Diagnostic{}
			}
			out.Skills = append(out.Skills, jsonResult{r, r.Errors(), r.Warnings()})
		}
		if err := command.WriteJSON(e.Stdout, out); err != nil {
			return err
		}
	} else {
		printLint(e, results, errs, warns)
	}
	if errs > 0 {
		return &command.SilentError{Code: command.ExitInvalid}
	}
	return nil
}

func printRules(e *command.Env) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, skill.Rules())
	}
	for _, r := range skill.Rules() {
		fmt.Fprintf(e.Stdout, "%-26s %-8s %-13s %s\n", r.ID, r.Severity, r.Profile, r.Summary)
	}
	return nil
}
