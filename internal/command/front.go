package command

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
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
// signals and exit code). It returns only when that fails. The child
// learns this program's build (FrontBuildEnv), so that a skillpm-full
// from another build says so (CheckFront).
func HandOff(args []string) error {
	full, err := FindFull()
	if err != nil {
		return err
	}
	if err := os.Setenv(FrontBuildEnv, BuildID()); err != nil {
		return err
	}
	return handOff(full, args)
}

// FrontBuildEnv is the variable in which the front passes its BuildID to
// the skillpm-full it hands a command line to.
const FrontBuildEnv = "SKILLPM_FRONT_BUILD"

// BuildID names this program's build: its version, and for a build from
// a VCS checkout the revision, with "+modified" when the tree had
// uncommitted changes ("dev@0123456789ab+modified"). The programs of one
// installation share it.
func BuildID() string {
	v := version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		if rev := revision(bi); rev != "" {
			v += "@" + rev
		}
	}
	return v
}

// revision is the VCS revision bi records, shortened to 12 characters,
// with "+modified" for a build of a changed tree; "" when bi has none.
func revision(bi *debug.BuildInfo) string {
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return ""
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "+modified"
	}
	return rev
}

// CheckFront is skillpm-full's first step: when a front handed it the
// command line (FrontBuildEnv) and is of another build than this program,
// it warns on stderr, naming both, because the two are built and
// installed together and a mixed pair may disagree on file formats and
// flags. The command runs on either way. The variable is removed, so
// that nothing this program starts inherits it.
func CheckFront(stderr io.Writer) {
	front, ok := os.LookupEnv(FrontBuildEnv)
	if !ok {
		return
	}
	os.Unsetenv(FrontBuildEnv)
	if msg := frontMismatch(front, BuildID()); msg != "" {
		fmt.Fprintln(stderr, msg)
	}
}

// maxBuildID bounds the front's build ID a warning quotes.
const maxBuildID = 128

// frontMismatch is CheckFront's warning for a front of build front and
// this program of build full; "" when they are the same build.
func frontMismatch(front, full string) string {
	if front == full {
		return ""
	}
	self := FullName
	if exe, err := os.Executable(); err == nil {
		self += " (" + exe + ")"
	}
	// The variable is the environment's word: a build ID is short.
	if len(front) > maxBuildID {
		front = front[:maxBuildID] + "..."
	}
	return fmt.Sprintf("skillpm: warning: %s is build %s, but the skillpm that handed it this command is build %s; install the programs together (go install ./cmd/... puts skillpm, skillpm-full and skillpm-sigstore side by side)", TermLine(self), full, TermLine(front))
}
