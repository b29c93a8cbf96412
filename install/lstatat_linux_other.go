//go:build linux && !(amd64 || arm64 || riscv64)

package install

import (
	"bytes"

	"golang.org/x/sys/unix"
)

// lstatAt is unix.Fstatat(fd, path, st, unix.AT_SYMLINK_NOFOLLOW) for a
// path given as NUL-terminated bytes.
func lstatAt(fd int, path []byte, st *unix.Stat_t) error {
	name, ok := bytes.CutSuffix(path, []byte{0})
	if !ok || bytes.IndexByte(name, 0) >= 0 {
		return unix.EINVAL
	}
	return unix.Fstatat(fd, string(name), st, unix.AT_SYMLINK_NOFOLLOW)
}
