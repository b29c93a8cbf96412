//go:build unix

package toolrun

import (
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock on f; with wait false it fails at
// once if another process holds it.
func lockFile(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	return syscall.Flock(int(f.Fd()), how)
}

// ownedByMe reports whether fi (from Lstat or Stat) is this user's.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// openNoFollow opens path for reading and writing, failing if its last
// element is a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|syscall.O_NOFOLLOW, 0)
}
