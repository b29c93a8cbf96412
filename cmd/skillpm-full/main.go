// Command skillpm-full is the whole skillpm CLI: it lints, packs, signs,
// publishes, resolves, locks, installs, verifies and mirrors skill folders
// as OCI artifacts, and runs the tools installed skills declare.
//
// Users run skillpm (cmd/skillpm), a small program that starts fast and
// runs the everyday read-only commands itself; it hands every other
// command line to this one, which is installed beside it.
package main

import (
	"fmt"
	"os"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/sandbox"
)

func main() {
	// Sandbox launcher: a confined tool run re-executes skillpm with this
	// hidden first argument to apply its policy and start the handler.
	if sandbox.IsLauncher(os.Args) {
		code, err := sandbox.Launch(os.Args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	e := &command.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	ctx, stop := command.SignalContext(e)
	code := runEnv(ctx, e, os.Args)
	stop()
	os.Exit(code)
}
