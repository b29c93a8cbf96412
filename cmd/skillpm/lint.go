package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

type lintOptions struct {
	paths   []string
	profile skill.Profile
	strict  bool
	rules   bool
}

func lintCommand(e *env) *cli.Command {
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
				return usageErrorf(c, "%v", err)
			}
			opts := lintOptions{paths: c.Args().Slice(), profile: p, strict: c.Bool("strict"), rules: c.Bool("rules")}
			if len(opts.paths) == 0 {
				opts.paths = []string{"."}
			}
			return runLint(e, opts)
		},
	}
}

func runLint(e *env, opts lintOptions) error {
	if opts.rules {
		return printRules(e)
	}
	var dirs []string
	for _, p := range opts.paths {
		found, err := findSkills(p)
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
	if e.json {
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
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
	} else {
		printLint(e, results, errs, warns)
	}
	if errs > 0 {
		return &silentError{code: exitInvalid}
	}
	return nil
}

func printLint(e *env, results []*skill.Result, errs, warns int) {
	clean := 0
	for _, r := range results {
		if len(r.Diagnostics) == 0 {
			clean++
			continue
		}
		for _, d := range r.Diagnostics {
			if e.quiet && d.Severity != skill.SeverityError {
				continue
			}
			loc := d.File
			if d.Line > 0 {
				loc = fmt.Sprintf("%s:%d", d.File, d.Line)
			}
			sev := string(d.Severity)
			if d.Severity == skill.SeverityError {
				sev = e.paint("31", sev)
			} else {
				sev = e.paint("33", sev)
			}
			fmt.Fprintf(e.stdout, "%s: %s %s %s\n", termLine(loc), sev, e.paint("2", "["+d.Rule+"]"), termText(d.Message))
			if d.Fix != "" {
				fmt.Fprintf(e.stdout, "    fix: %s\n", termText(d.Fix))
			}
		}
	}
	if e.quiet {
		return
	}
	fmt.Fprintf(e.stdout, "%s, %s in %s (%d clean)\n",
		plural(errs, "error"), plural(warns, "warning"), plural(len(results), "skill"), clean)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func printRules(e *env) error {
	if e.json {
		return writeJSON(e.stdout, skill.Rules())
	}
	for _, r := range skill.Rules() {
		fmt.Fprintf(e.stdout, "%-26s %-8s %-13s %s\n", r.ID, r.Severity, r.Profile, r.Summary)
	}
	return nil
}

// findSkills returns the skill folders at or under p: p itself when it
// holds a SKILL.md entry (even a broken one, so lint can say what is
// wrong), otherwise every folder below it that does. Hidden folders are
// searched (.claude/skills) except .git; node_modules is skipped.
func findSkills(p string) ([]string, error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &skill.Error{Path: p, Rule: "skill-md-missing", Msg: "no such file or directory", Fix: "pass the path of a skill folder", Err: skill.ErrNotSkill}
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if filepath.Base(p) == skill.FileName {
			return []string{filepath.Dir(p)}, nil
		}
		return nil, &skill.Error{Path: p, Rule: "skill-md-missing", Msg: "not a skill folder", Fix: "pass the folder that holds SKILL.md", Err: skill.ErrNotSkill}
	}
	if _, err := os.Lstat(filepath.Join(p, skill.FileName)); err == nil {
		return []string{p}, nil
	}
	var dirs []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == p {
				return err
			}
			return nil // unreadable subfolders are skipped
		}
		if d.IsDir() && path != p && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == skill.FileName && path != p {
			dirs = append(dirs, filepath.Dir(path))
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, &skill.Error{Path: p, Rule: "skill-md-missing", Msg: "no SKILL.md found in or under this folder", Fix: "create one with 'skillpm init " + p + "'", Err: skill.ErrNotSkill}
	}
	sort.Strings(dirs)
	return dedupe(dirs), nil
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
