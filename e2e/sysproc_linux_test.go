package e2e

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// setDeathSignal makes the kernel kill the registry if the test binary
// dies without running its cleanups (a panic or a go test timeout).
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// processRunning reports whether pid is a live process: it exists and is
// not a zombie waiting to be reaped.
func processRunning(ts *testscript.TestScript, pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // gone between the two checks
	}
	// Format: pid (comm) state ...; comm may contain spaces and parens.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return !(i >= 0 && i+2 < len(s) && s[i+2] == 'Z')
}
