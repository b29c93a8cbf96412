package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/bundle"
	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/importer"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/resolve"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/wellknown"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
)

// A case of exitCode's switch with no body returns nothing for its
// errors: Go does not fall through, so they would exit 1. Merges that
// join two lists of errors have left such a case behind before.
func TestExitCodeCasesHaveBodies(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "exitcode.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CaseClause); ok && len(cc.Body) == 0 {
			t.Errorf("%s: a case with no body (its errors would exit 1)", fset.Position(cc.Pos()))
		}
		return true
	})
}

func TestExitCodeOfSentinels(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{manager.ErrLockMismatch, command.ExitIntegrity},
		{lockfile.ErrInvalid, command.ExitIntegrity},
		{importer.ErrFormat, command.ExitIntegrity},
		{source.ErrPinMismatch, command.ExitIntegrity},
		{wellknown.ErrIntegrity, command.ExitIntegrity},
		{manager.ErrStaleLock, command.ExitStaleLock},
		{wellknown.ErrInsecure, command.ExitPolicy},
		{registry.ErrInsecure, command.ExitPolicy},
		{wellknown.ErrLinkedTarget, command.ExitIntegrity},
		{bundle.ErrBadBundle, command.ExitIntegrity},
	} {
		if got := exitCode(fmt.Errorf("wrapped: %w", c.err)); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// TestExitCodeIntegrity: an edited lock, a lock that is not valid, a
// peer's lock file that is not its format and a moved pin are integrity
// failures (10), as the README's table says, never the catch-all 1.
func TestExitCodeIntegrity(t *testing.T) {
	for _, err := range []error{
		&manager.LockError{Problems: []manager.LockProblem{{Skill: "pdf", Reason: "edited"}}},
		fmt.Errorf("read skills.lock: %w", lockfile.ErrInvalid),
		&importer.FileError{File: "skills-lock.json", Err: fmt.Errorf("bad")},
		fmt.Errorf("pdf: %w", source.ErrPinMismatch),
	} {
		if got := exitCode(err); got != command.ExitIntegrity {
			t.Errorf("exitCode(%v) = %d; want %d", err, got, command.ExitIntegrity)
		}
	}
}

// unwrapper wraps an error without printing it (fmt.Errorf would call
// Error on zero-valued error structs).
type unwrapper struct{ err error }

func (u unwrapper) Error() string { return "wrapped" }
func (u unwrapper) Unwrap() error { return u.err }

// The front program (cmd/skillpm) maps the errors of the commands it runs
// itself with command.LightExitCode and command.LightHint; this program
// maps every error with exitCode and hintFor. On the light libraries'
// errors the two must agree, or the same failure would exit differently
// depending on which program ran it.
func TestLightExitCodesAgree(t *testing.T) {
	for _, err := range []error{
		nil,
		errors.New("anything else"),
		sigproto.ErrHelperMissing,
		&command.SilentError{Code: command.ExitAudit},
		&command.UsageError{Msg: "bad", Hint: "see 'skillpm list --help'"},
		context.Canceled,
		agent.ErrNotFound,
		&agent.NotFoundError{Kind: "tool", Available: []string{"a", "b"}},
		agent.ErrSmokeInvalid,
		agent.ErrInvalid,
		agent.ErrUnknownAgent,
		skill.ErrNoFrontmatterTools,
		&skill.Error{Fix: "add a description"},
		lockfile.ErrInvalid,
		config.ErrInvalid,
		project.ErrInvalid,
		project.ErrNotFound,
		&resolve.NoSolutionError{},
		resolve.ErrNotFound,
		install.ErrBadRecord,
		install.ErrLinkedSkill,
		install.ErrUnsafeContent,
		&install.OutsideError{},
		&install.HandAuthoredError{},
		&install.ModifiedError{},
		&install.OwnedError{},
		&toolrun.Error{Kind: toolrun.SkillNotFound},
		&toolrun.Error{Kind: toolrun.InvalidInput},
		&toolrun.Error{Kind: toolrun.ExecutionTimeout},
		cli.Exit("", command.ExitInvalid),
	} {
		if err != nil {
			err = unwrapper{err}
		}
		if full, light := exitCode(err), command.LightExitCode(err); full != light {
			t.Errorf("%#v: exit code %d here, %d in the front", errors.Unwrap(err), full, light)
		}
		if err == nil {
			continue
		}
		if full, light := hintFor(err), command.LightHint(err); full != light {
			t.Errorf("%#v: hint %q here, %q in the front", errors.Unwrap(err), full, light)
		}
	}
}
