package registry

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

const unnamedSupported = true

// procFD is where a process's open files have names; tests move it.
var procFD = "/proc/self/fd"

// openUnnamed opens a new file in dir that has no name yet.
func openUnnamed(dir string) (*os.File, error) {
	for {
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed)")), nil
		case err == unix.EINTR:
			continue
		case err == unix.EOPNOTSUPP || err == unix.EISDIR || err == unix.EINVAL:
			// The filesystem or the kernel (before 3.11: EISDIR) has no
			// O_TMPFILE.
			return nil, errUnnamedUnsupported
		default:
			return nil, &os.PathError{Op: "open", Path: dir, Err: err}
		}
	}
}

// linkUnnamed gives f, from openUnnamed, the name path. It fails with
// an error matching os.ErrExist when path exists; any other failure
// (no /proc, a sandbox refusing the link) means spooling should go on
// with named files.
func linkUnnamed(f *os.File, path string) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var lerr error
	if err := rc.Control(func(fd uintptr) {
		// linkat with AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; through
		// /proc it needs nothing (open(2), O_TMPFILE).
		lerr = unix.Linkat(unix.AT_FDCWD, procFD+"/"+strconv.Itoa(int(fd)), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	}); err != nil {
		return err
	}
	if lerr != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: path, Err: lerr}
	}
	return nil
}
