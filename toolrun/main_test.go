package toolrun

import (
	"fmt"
	"os"
	"testing"

	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/sandbox/netproxy"
)

// TestMain lets the test binary serve as the sandbox launcher, as the
// skillpm binary does: confined runs re-execute os.Executable().
func TestMain(m *testing.M) {
	if sandbox.IsLauncher(os.Args) {
		code, err := sandbox.Launch(os.Args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	// And as skillpm-full serving a filtering proxy (ProxyProcess).
	if sandbox.IsProxyChild(os.Args) {
		os.Exit(netproxy.RunChild(os.Args, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}
