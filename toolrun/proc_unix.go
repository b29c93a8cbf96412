//go:build unix

package toolrun

import (
	"os"
	"os/exec"
	"syscall"
)

// setGroup makes the child the leader of a new process group, so that it
// and everything it spawns can be signalled at once.
func setGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminateGroup asks the child's process group to stop (SIGTERM). os/exec
// follows up with SIGKILL on the main process after WaitDelay, and run
// kills the rest of the group once the main process is gone.
func terminateGroup(p *os.Process) error {
	return signalGroup(p, syscall.SIGTERM)
}

// killGroup kills every process left in the child's process group.
func killGroup(p *os.Process) error {
	return signalGroup(p, syscall.SIGKILL)
}

func signalGroup(p *os.Process, sig syscall.Signal) error {
	if p == nil {
		return nil
	}
	// The group id is the leader's pid; it cannot be reused while any
	// member of the group is alive, even after the leader was reaped.
	if err := syscall.Kill(-p.Pid, sig); err != nil {
		if err == syscall.ESRCH {
			return os.ErrProcessDone
		}
		return err
	}
	return nil
}
