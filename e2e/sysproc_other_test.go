//go:build !linux

package e2e

import (
	"os/exec"

	"github.com/rogpeppe/go-internal/testscript"
)

// setDeathSignal is a no-op where the kernel has no parent-death signal;
// test cleanups stop the registries.
func setDeathSignal(*exec.Cmd) {}

// processRunning is only implemented on Linux, where the e2e suite runs;
// elsewhere a script using 'gone' fails rather than passing unchecked.
func processRunning(ts *testscript.TestScript, pid int) bool {
	ts.Fatalf("gone: checking process %d is only implemented on Linux", pid)
	return true
}
