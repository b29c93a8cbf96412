package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/skillpm/skillpm/importer"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/wellknown"
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
		{manager.ErrLockMismatch, exitIntegrity},
		{lockfile.ErrInvalid, exitIntegrity},
		{importer.ErrFormat, exitIntegrity},
		{source.ErrPinMismatch, exitIntegrity},
		{wellknown.ErrIntegrity, exitIntegrity},
		{manager.ErrStaleLock, exitStaleLock},
		{wellknown.ErrInsecure, exitPolicy},
		{wellknown.ErrLinkedTarget, exitIntegrity},
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
		if got := exitCode(err); got != exitIntegrity {
			t.Errorf("exitCode(%v) = %d; want %d", err, got, exitIntegrity)
		}
	}
}
