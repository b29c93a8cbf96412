// Package siblings finds the programs skillpm is installed with
// (skillpm-full, skillpm-sigstore): beside the running executable, else
// on PATH.
package siblings

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Find returns the path of the program name (".exe" added on Windows):
// the one beside the running executable (symlinks resolved), else the
// first on PATH. When there is none it returns the path it looked for
// beside the executable, for the error message, and an error.
func Find(name string) (path, beside string, err error) {
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		beside = filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, beside, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, beside, nil
	}
	return "", beside, errors.New(name + " not found")
}
