package sandbox

import (
	"os"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// NoInherit marks every file descriptor above standard error close-on-exec,
// so that none skillpm was started with reaches a tool it runs: a
// descriptor inherited from a shell, a build tool or an agent host (an
// open file, a socket, a folder) would be a way around the sandbox's
// file and network rules, which apply to what the tool opens. Descriptors
// handed to a child on purpose (exec.Cmd.ExtraFiles) are unaffected:
// they are duplicated into the child after the fork, and the process
// itself can still read every descriptor (/dev/fd/N). Tool runs call it
// before they start a tool, not the program at its start: the front's
// hand-off to skillpm-full must pass on what the user gave it on purpose,
// a shell's process substitution (<(…), /dev/fd/63) say. Only the first
// call does anything: descriptors the program opens itself are
// close-on-exec already.
func NoInherit() { noInherit.Do(markInherited) }

var noInherit sync.Once

func markInherited() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: each open descriptor, as /proc lists them.
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}
