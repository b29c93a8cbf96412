//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
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
