//go:build !linux

package e2e

import "os/exec"

// setDeathSignal is a no-op where the kernel has no parent-death signal;
// test cleanups stop the registries.
func setDeathSignal(*exec.Cmd) {}
