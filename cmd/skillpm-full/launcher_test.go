package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/skillpm/skillpm/sandbox"
)

// TestMain lets the test binary serve as the sandbox launcher, as main
// does: confined runs re-execute os.Executable().
func TestMain(m *testing.M) {
	if sandbox.IsLauncher(os.Args) {
		code, err := sandbox.Launch(os.Args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}
