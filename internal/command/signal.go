package command

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// SignalContext returns a context cancelled by the first SIGINT or
// SIGTERM, with "<signal> signal received" as its cause: commands stop
// gracefully (a running tool's process group gets SIGTERM, then SIGKILL
// after a grace period). A second signal does not wait for that: it kills
// every tool process group still running and exits at once with 130.
func SignalContext(e *Env) (context.Context, func()) {
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
			// Said before the kill: a killed run ends its command, which
			// could otherwise print its own error and exit first.
			e.Groups.KillAll(func(n int) {
				fmt.Fprintf(e.Stderr, "error: %v signal received again: killed %d running tool process group(s); exiting now\n", s, n)
			})
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}
