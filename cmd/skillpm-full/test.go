package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

func testCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "test",
		Usage: "run skills' evaluation.smoke_tests",
		UsageText: `skillpm test [options] [SKILL|PATH...]

Runs the evaluation.smoke_tests of each named installed skill (or skill folder,
when the argument is a path), or of every effective installed skill when none
is named, through the same runner as 'skillpm run': the input is checked
against the tool's input_schema, __workDir is added, timeouts, output caps and
declared secrets apply. Each test calls one tool and holds its output to one
expectation (equals, schema or contains; see README "Smoke tests").

Prints PASS or FAIL per test and a summary; --json prints every result.
Exit codes: 0 every test passed (or there were none), 12 a test failed or its
tool failed, 3 a skill's smoke tests are malformed (run 'skillpm lint'),
4 a named skill is not installed.

Examples:
  skillpm test
  skillpm test doc-tools --json
  skillpm test ./skills/pdf-tools --timeout 1m`,
		Flags: append(append(command.RunFlags(), command.MaxOutputFlag()), command.CatalogFlags()...),
		Action: func(c *cli.Context) error {
			skills, err := testTargets(c.Context, e, c)
			if err != nil {
				return err
			}
			results, err := runSmoke(c.Context, e, c, skills, e.Stdout, e.JSON)
			if e.JSON {
				if werr := command.WriteJSON(e.Stdout, map[string]any{"results": results, "passed": countPassed(results), "failed": len(results) - countPassed(results)}); werr != nil {
					return werr
				}
			}
			if err != nil {
				return err
			}
			if countPassed(results) < len(results) {
				return &command.SilentError{Code: command.ExitToolFailed}
			}
			return nil
		},
	}
}

// testTargets loads the skills 'skillpm test' runs: the named ones (a path
// to a folder, or an effective installed skill), or every effective one.
func testTargets(ctx context.Context, e *command.Env, c *cli.Context) ([]*skill.Skill, error) {
	var dirs []string
	var cat *agent.Catalog
	for _, a := range c.Args().Slice() {
		if strings.ContainsAny(a, `/\`) || a == "." || a == ".." {
			if fi, err := os.Stat(a); err == nil && fi.IsDir() {
				dirs = append(dirs, a)
				continue
			}
		}
		if cat == nil {
			var err error
			if cat, err = command.PrepareCatalog(ctx, e, c); err != nil {
				return nil, err
			}
		}
		s, err := cat.Skill(a)
		if err != nil {
			return nil, err
		}
		dirs = append(dirs, s.Dir)
	}
	if c.NArg() == 0 {
		var err error
		if cat, err = command.PrepareCatalog(ctx, e, c); err != nil {
			return nil, err
		}
		for _, s := range cat.Skills {
			dirs = append(dirs, s.Dir)
		}
	}
	var out []*skill.Skill
	for _, d := range dirs {
		s, err := skill.Load(d)
		if err != nil {
			return nil, fmt.Errorf("test %s: %w", d, err)
		}
		out = append(out, s)
	}
	return out, nil
}
