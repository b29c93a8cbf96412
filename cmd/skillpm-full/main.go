// Command skillpm-full is the whole skillpm CLI: it lints, packs, signs,
// publishes, resolves, locks, installs, verifies and mirrors skill folders
// as OCI artifacts, and runs the tools installed skills declare.
//
// Users run skillpm (cmd/skillpm), a small program that starts fast and
// runs the everyday read-only commands itself; it hands every other
// command line to this one, which is installed beside it.
package main

import (
	"os"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/sandbox/netproxy"
)

func main() {
	// The front runs a tool that declares network.outbound hosts with
	// its filtering proxy served by this program (toolrun.ProxyProcess).
	if sandbox.IsProxyChild(os.Args) {
		os.Exit(netproxy.RunChild(os.Args, os.Stdin, os.Stdout))
	}
	command.CheckFront(os.Stderr)
	command.Main(nil, runEnv)
}
