//go:build linux

package install

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// exchange atomically swaps the entries a and b of root (paths relative
// to it), so a reader (or a crash) sees either the old skill folder or the
// new one, never neither. The swap is made relative to root's folder, so
// a link swapped into the target's path meanwhile is not followed. Where
// the kernel or filesystem can't, it falls back to two renames.
func exchange(root *os.Root, a, b string) error {
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	fd := int(d.Fd())
	err = unix.Renameat2(fd, a, fd, b, unix.RENAME_EXCHANGE)
	if err == nil {
		return nil
	}
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return exchangeByRename(root, a, b)
	}
	return &os.LinkError{Op: "exchange", Old: a, New: b, Err: err}
}
