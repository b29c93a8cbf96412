package command

import (
	"errors"
	"fmt"
	"slices"

	"github.com/skillpm/skillpm/internal/siblings"
)

// FullName is the program the front (cmd/skillpm) hands every command
// line it does not run itself to: cmd/skillpm-full, the whole CLI.
const FullName = "skillpm-full"

// ErrNoFull is wrapped by HandOff's error when skillpm-full cannot be
// found (exit code 16, as for the sigstore helper).
var ErrNoFull = errors.New(FullName + " is not installed")

// lightNames are the commands the front runs itself, by every name they
// answer to.
var lightNames = []string{"list", "ls", "status", "search", "tools", "run", "prompt", "version", "install", "i"}

// Handles reports whether the front runs the command line args itself: the
// version probe, the commands of Light, and install (which hands off
// again unless it is a warm no-op), with anything but shell completion
// (which lists every command). Everything else, the top-level help and
// unknown commands among it, is the full program's.
func Handles(args []string) bool {
	if IsVersionProbe(args) {
		return true
	}
	if args[len(args)-1] == "--generate-bash-completion" {
		return false
	}
	name := CommandName(args)
	return name != "" && slices.Contains(lightNames, name)
}

// FindFull returns the path of skillpm-full: the one beside the running
// executable (symlinks resolved), else the first on PATH. It wraps
// ErrNoFull when there is none.
func FindFull() (string, error) {
	return findFull("every command but list, status, search, tools, run, prompt, version and a warm install runs in it")
}

// FindFullProxy is FindFull for serving the filtering proxy of a tool
// run (toolrun.ProxyProcess), which is why the front needs it then.
func FindFullProxy() (string, error) {
	return findFull("it serves the filtering proxy of tools that declare network.outbound hosts")
}

// findFull is FindFull, saying why skillpm-full is needed.
func findFull(why string) (string, error) {
	p, beside, err := siblings.Find(FullName)
	if err != nil {
		return "", fmt.Errorf("%w: %s, and it is neither at %s nor on PATH", ErrNoFull, why, beside)
	}
	return p, nil
}

// HandOff runs the command line args in skillpm-full, in place of this
// process where the system can (exec on Unix: same process, streams,
// signals and exit code). It returns only when that fails.
func HandOff(args []string) error {
	full, err := FindFull()
	if err != nil {
		return err
	}
	return handOff(full, args)
}
