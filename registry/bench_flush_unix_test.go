//go:build unix

package registry

import (
	"syscall"
	"time"
)

// flushDirty writes back what earlier phases left dirty in the page
// cache, so that a phase is not charged for another's writes.
func flushDirty() { syscall.Sync() }

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
