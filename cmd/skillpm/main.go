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
	"context"
	"os"
	"runtime/debug"

	"github.com/skillpm/skillpm/internal/command"
)

// The front's collector settings: with gcPercent 800 the first
// collection comes at 32 MiB of heap (the runtime's 4 MiB goal times
// 1+800/100), and later ones when the heap is nine times what the last
// left live; gcLimit makes them come sooner as the heap nears it. Unlike
// no collection below a limit (GOGC=off), this cannot spin collecting
// when the live heap itself reaches the limit.
const (
	gcPercent = 800
	gcLimit   = 64 << 20
)

func main() {
	command.Main(handOff, func(ctx context.Context, e *command.Env, args []string) int {
		// The commands the front runs are short and allocate a few
		// megabytes; collecting them cost more than it saved (9 of a
		// 25 ms 'skillpm list' over 1,000 skills; GOGC=100 vs these
		// settings, 41 alternating runs: list 23.4 vs 20.0 ms, tools
		// --json 22.8 vs 19.5 ms). GOGC or GOMEMLIMIT in the
		// environment win.
		if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
			debug.SetGCPercent(gcPercent)
			debug.SetMemoryLimit(gcLimit)
		}
		cmds := append(command.Light(e), command.WarmInstallCommand(e))
		return command.Run(ctx, e, command.NewApp(e, cmds), args)
	})
}

// handOff execs skillpm-full for every command line the front does not
// run itself, before any signal is handled here; it returns only if that
// failed.
func handOff(e *command.Env, args []string) (int, bool) {
	if command.Handles(args) {
		return 0, false
	}
	err := command.HandOff(args)
	e.JSON = command.HasFlag(args, "json")
	return command.Report(e, err), true
}
