package command

import (
	"context"
	"fmt"
	"os"

	"github.com/skillpm/skillpm/sandbox"
)

// Main is both programs' main: the sandbox launcher when a confined tool
// run re-executed the program for it; else the version probe
// (IsVersionProbe), printed before anything else is set up; else early,
// when set, which may
// finish the process before any signal is handled (the front's hand-off
// to skillpm-full); else run with the process's streams and a context
// the first SIGINT or SIGTERM cancels (SignalContext). It exits with the
// code early or run returns.
func Main(early func(e *Env, args []string) (code int, done bool), run func(ctx context.Context, e *Env, args []string) int) {
	// A confined tool run re-executes the program with this hidden first
	// argument to apply its policy and start the handler.
	if sandbox.IsLauncher(os.Args) {
		code, err := sandbox.Launch(os.Args)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(code)
	}
	e := &Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	if IsVersionProbe(os.Args) {
		// The probe scripts and agents run most: no app to build, no
		// signal to handle, nothing to hand off.
		code := ExitOK
		if err := printVersion(e); err != nil {
			code = Report(e, err)
		}
		os.Exit(code)
	}
	if early != nil {
		if code, done := early(e, os.Args); done {
			os.Exit(code)
		}
	}
	ctx, stop := SignalContext(e)
	code := run(ctx, e, os.Args)
	stop()
	os.Exit(code)
}
