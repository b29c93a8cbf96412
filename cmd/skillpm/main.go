// Command skillpm is the package manager for agent skills: it lints, packs,
// signs, publishes, resolves, locks, installs, verifies and mirrors skill
// folders as OCI artifacts, and runs the tools installed skills declare.
//
// This program is the front users and agents run. It starts about as fast
// as a bare Go program because it links only the light libraries: it runs
// --version, list, status, search, tools, prompt and run itself, and an install
// that has nothing to do (internal/command/warm.go); it hands every other
// command line, by exec, to skillpm-full (cmd/skillpm-full),
// installed beside it, which links the registry clients, sigstore and the
// MCP server.
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
	if !command.Handles(os.Args) {
		err := command.HandOff(os.Args) // returns only if it failed
		e.JSON = command.HasFlag(os.Args, "json")
		os.Exit(command.Report(e, err))
	}
	ctx, stop := command.SignalContext(e)
	cmds := append(command.Light(e), command.WarmInstallCommand(e))
	code := command.Run(ctx, e, command.NewApp(e, cmds), os.Args)
	stop()
	os.Exit(code)
}
