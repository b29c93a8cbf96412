// Command skillpm is the package manager for agent skills: it lints, packs,
// signs, publishes, resolves, locks, installs, verifies and mirrors skill
// folders as OCI artifacts, and runs the tools installed skills declare.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
