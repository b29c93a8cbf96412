package main

import (
	"fmt"
	"testing"

	"github.com/skillpm/skillpm/importer"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/source"
)

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
