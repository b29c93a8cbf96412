//go:build unix

package registry

import "syscall"

// setUmask sets the process's umask and returns the previous one.
func setUmask(m int) int { return syscall.Umask(m) }
