//go:build !unix

package toolrun

import (
	"os"
	"os/exec"
)

// setGroup is a no-op where process groups are not available: only the
// main process is killed on timeout.
func setGroup(cmd *exec.Cmd) {}

// terminateGroup kills the main process.
func terminateGroup(p *os.Process) error { return killGroup(p) }

// killGroup kills the main process; descendants are not tracked here.
func killGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	return p.Kill()
}
