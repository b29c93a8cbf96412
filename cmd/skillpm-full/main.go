// Command skillpm is the package manager for agent skills: it lints, packs,
// signs, publishes, resolves, locks, installs, verifies and mirrors skill
// folders as OCI artifacts, and runs the tools installed skills declare.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

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
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	ctx, stop := signalContext(e)
	code := runEnv(ctx, e, os.Args)
	stop()
	os.Exit(code)
}

// signalContext returns a context cancelled by the first SIGINT or
// SIGTERM, with "<signal> signal received" as its cause: commands stop
// gracefully (a running tool's process group gets SIGTERM, then SIGKILL
// after a grace period). A second signal does not wait for that: it kills
// every tool process group still running and exits at once with 130.
func signalContext(e *env) (context.Context, func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(fmt.Errorf("%v signal received", s))
		case <-done:
			return
		}
		select {
		case s := <-sigs:
			n := e.groups.KillAll()
			fmt.Fprintf(e.stderr, "error: %v signal received again: killed %d running tool process group(s); exiting now\n", s, n)
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
