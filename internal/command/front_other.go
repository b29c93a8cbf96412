//go:build !unix

package command

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// handOff runs skillpm-full as a child with this process's streams, and
// exits with its exit code: there is no exec in place here. Interrupts
// reach the child from the console; this process only waits for it.
func handOff(full string, args []string) error {
	cmd := exec.Command(full, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(os.Interrupt)
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee):
		os.Exit(ee.ExitCode())
	}
	return fmt.Errorf("start %s: %w", full, err)
}
