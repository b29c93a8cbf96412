package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

// publishSmokeTests runs the smoke tests of the skill being published,
// printing results to stderr so publish's stdout stays its own.
func publishSmokeTests(ctx context.Context, e *command.Env, c *cli.Context, s *skill.Skill) error {
	results, err := runSmoke(ctx, e, c, []*skill.Skill{s}, e.Stderr, false)
	if err != nil {
		return err
	}
	if p := countPassed(results); p < len(results) {
		e.Logf("publish: %d of %d smoke tests failed; nothing was pushed", len(results)-p, len(results))
		return &command.SilentError{Code: command.ExitToolFailed}
	}
	return nil
}

// runSmoke runs the smoke tests of skills and, unless asJSON, prints one
// line per test and a summary on w. A skill without smoke tests is skipped
// (named with --debug).
func runSmoke(ctx context.Context, e *command.Env, c *cli.Context, skills []*skill.Skill, w io.Writer, asJSON bool) ([]agent.SmokeResult, error) {
	results := []agent.SmokeResult{}
	opts, err := command.RunOptions(e, c)
	if err != nil {
		return nil, err
	}
	for _, s := range skills {
		if _, ok := s.Frontmatter.Evaluation["smoke_tests"]; !ok {
			e.Debugf("test: %s has no smoke tests", s.Name())
			continue
		}
		rs, err := agent.RunSmokeTests(ctx, s, opts)
		for _, r := range rs {
			results = append(results, r)
			if asJSON {
				continue
			}
			// One line per test: the test's name and the tool's output
			// quoted in the failure are the skill's, and must not write
			// lines (a PASS, a summary) of their own.
			if r.Passed {
				fmt.Fprintf(w, "PASS %s/%s (%s)\n", command.TermLine(r.Skill), command.TermLine(r.Test), r.Duration.Round(time.Millisecond))
			} else {
				fmt.Fprintf(w, "FAIL %s/%s: %s\n", command.TermLine(r.Skill), command.TermLine(r.Test), command.TermLine(r.Failure))
			}
		}
		if err != nil {
			return results, fmt.Errorf("%w (%s)", err, filepath.Join(s.Dir, skill.FileName))
		}
	}
	if !asJSON && !e.Quiet {
		p := countPassed(results)
		fmt.Fprintf(w, "%d tests: %d passed, %d failed\n", len(results), p, len(results)-p)
	}
	return results, nil
}

func countPassed(rs []agent.SmokeResult) int {
	n := 0
	for _, r := range rs {
		if r.Passed {
			n++
		}
	}
	return n
}
