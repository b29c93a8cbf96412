package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/toolrun"
)

// SmokeResult is the outcome of one smoke test.
type SmokeResult struct {
	Skill string `json:"skill"`
	Test  string `json:"test"`
	Tool  string `json:"tool"`
	// Passed reports that the tool ran and its output met the expectation.
	Passed bool `json:"passed"`
	// Output is the tool's output (or error envelope).
	Output json.RawMessage `json:"output,omitempty"`
	// Failure says why the test failed; empty when it passed.
	Failure  string        `json:"failure,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// ErrSmokeInvalid is returned by RunSmokeTests for a skill whose
// evaluation.smoke_tests are malformed (lint rule smoke-test).
var ErrSmokeInvalid = errors.New("malformed smoke tests")

// RunSmokeTests runs the evaluation.smoke_tests of the loaded skill s, in
// file order, each through toolrun.RunTool (the runner of 'skillpm run':
// input schema check, __workDir, timeouts, output caps, declared secrets),
// and holds each output to its expectation. A tool that fails counts as a
// failed test. It returns an error wrapping ErrSmokeInvalid, and runs
// nothing, when an entry is malformed or names an undeclared tool; run
// 'skillpm lint' for the details.
func RunSmokeTests(ctx context.Context, s *skill.Skill, opts toolrun.Options) ([]SmokeResult, error) {
	tests := s.SmokeTests()
	if n := declaredSmokeTests(s); n < 0 {
		return nil, fmt.Errorf("skill %q: evaluation.smoke_tests is not a list: %w", s.Name(), ErrSmokeInvalid)
	} else if n != len(tests) {
		return nil, fmt.Errorf("skill %q: %d of %d smoke tests are malformed: %w", s.Name(), n-len(tests), n, ErrSmokeInvalid)
	}
	var secrets []string
	for _, sec := range s.Frontmatter.Secrets {
		secrets = append(secrets, sec.Name)
	}
	for _, t := range tests {
		if s.Tool(t.Tool) == nil {
			return nil, fmt.Errorf("skill %q: smoke test %q calls tool %q, which the skill does not declare: %w", s.Name(), t.Name, t.Tool, ErrSmokeInvalid)
		}
	}
	out := make([]SmokeResult, 0, len(tests))
	for _, t := range tests {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		tl := s.Tool(t.Tool)
		r := SmokeResult{Skill: s.Name(), Test: t.Name, Tool: t.Tool}
		input, err := json.Marshal(t.Input)
		if err != nil {
			return out, fmt.Errorf("smoke test %q: encode input: %w", t.Name, err)
		}
		start := time.Now()
		var res *toolrun.Result
		if tl.Entrypoint == "" {
			err = fmt.Errorf("tool %q has no handler script to run", tl.Name)
		} else {
			res, err = toolrun.RunTool(ctx, toolrun.Tool{
				Skill: s.Name(), Dir: s.Dir, Name: tl.Name, Runtime: tl.Runtime, Entrypoint: tl.Entrypoint,
				Handler: tl.Handler, Timeout: time.Duration(tl.TimeoutSeconds) * time.Second,
				InputSchema: tl.InputSchema, Secrets: secrets, Permissions: Permissions(s.Frontmatter.Permissions),
			}, input, opts)
		}
		r.Duration = time.Since(start)
		if res != nil {
			r.Output = res.Output
		}
		switch {
		case err != nil:
			r.Failure = "the tool failed: " + err.Error()
		default:
			if cerr := t.Expect.Check(res.Output); cerr != nil {
				r.Failure = cerr.Error()
			} else {
				r.Passed = true
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// declaredSmokeTests counts the entries of evaluation.smoke_tests, well
// formed or not.
func declaredSmokeTests(s *skill.Skill) int {
	list, _ := s.Frontmatter.Evaluation["smoke_tests"].([]any)
	if _, ok := s.Frontmatter.Evaluation["smoke_tests"]; ok && list == nil {
		return -1 // not a list: malformed
	}
	return len(list)
}
