//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the child's peak resident set in bytes (getrusage: KB on
// Linux and the BSDs, bytes on macOS).
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
