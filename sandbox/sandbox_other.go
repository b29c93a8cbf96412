//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// LauncherArg is the hidden first argument that makes skillpm run as the
// sandbox launcher (see IsLauncher).
const LauncherArg = "__sandbox-exec"

// Available reports whether this platform can enforce policies; only
// Linux can.
func Available() error {
	return fmt.Errorf("%w (%s: enforcement needs Linux Landlock and namespaces)", ErrUnsupported, runtime.GOOS)
}

// Wrap returns an error wrapping ErrUnsupported: this platform cannot
// enforce pol.
func Wrap(cmd *exec.Cmd, pol Policy, launcher string) error { return Available() }

// IsLauncher reports whether args (os.Args) ask for the sandbox launcher.
func IsLauncher(args []string) bool { return len(args) > 1 && args[1] == LauncherArg }

// Launch refuses: there is no launcher on this platform.
func Launch(args []string) (int, error) {
	return 126, errors.New("skillpm sandbox: not supported on " + runtime.GOOS)
}

// NeedsLauncher reports whether pol must run through the launcher; on
// this platform nothing runs confined.
func NeedsLauncher(pol Policy) bool { return false }

// Running is a handler started by Start; there are none here.
type Running struct{}

// Start refuses: this platform cannot enforce pol.
func Start(cmd *exec.Cmd, pol Policy) (*Running, error) { return nil, Available() }

// PID1 is false: there are no confined handlers here.
func (r *Running) PID1() bool { return false }

// Signal does nothing: there are no confined handlers here.
func (r *Running) Signal(sig syscall.Signal) {}

// Done does nothing.
func (r *Running) Done() {}

// CatchesSIGTERM is false: there are no confined handlers here.
func CatchesSIGTERM(pid int) bool { return false }

// Watcher watches nothing here: there are no confined handlers.
type Watcher struct{}

// Watch returns a Watcher that watches nothing.
func Watch(r *Running, p *os.Process, max int) *Watcher { return &Watcher{} }

// Stop returns 0: nothing was watched.
func (w *Watcher) Stop() int { return 0 }
