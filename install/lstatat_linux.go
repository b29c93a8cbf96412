//go:build linux && (amd64 || arm64 || riscv64)

package install

import (
	"bytes"
	"unsafe"

	"golang.org/x/sys/unix"
)

// lstatAt is unix.Fstatat(fd, path, st, unix.AT_SYMLINK_NOFOLLOW) for a
// path given as NUL-terminated bytes, which it passes to the kernel as
// they are: unix.Fstatat copies its string into a new byte slice, and a
// warm check makes about eight such calls per skill folder. These
// platforms' fstatat is newfstatat with unix.Stat_t as its struct.
func lstatAt(fd int, path []byte, st *unix.Stat_t) error {
	if len(path) == 0 || bytes.IndexByte(path, 0) != len(path)-1 {
		return unix.EINVAL // as unix.Fstatat refuses a NUL in its path
	}
	_, _, errno := unix.Syscall6(unix.SYS_NEWFSTATAT, uintptr(fd), uintptr(unsafe.Pointer(&path[0])), uintptr(unsafe.Pointer(st)), unix.AT_SYMLINK_NOFOLLOW, 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
