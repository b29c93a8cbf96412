//go:build linux

package install

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange atomically swaps the directories a and b, so a reader (or a
// crash) sees either the old skill folder or the new one, never neither.
// Where the kernel or filesystem can't, it falls back to two renames.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return exchangeByRename(a, b)
	}
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
}
