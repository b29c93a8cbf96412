package e2e

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel kill the registry if the test binary
// dies without running its cleanups (a panic or a go test timeout).
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
