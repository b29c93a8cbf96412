//go:build linux || darwin

package statat

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func fdOf(f *os.File) int { return int(f.Fd()) }

func stat(d *Dir, name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, 0)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return nil, &fs.PathError{Op: "stat", Path: filepath.Join(d.path, filepath.FromSlash(name)), Err: err}
		}
	}
	fi := &fileInfo{name: path.Base(name), size: st.Size, mode: FileMode(uint32(st.Mode))}
	sysStat(&fi.sys, &st)
	fi.mod = modTime(&fi.sys)
	return fi, nil
}

// ChangeTime returns fi's status-change time (ctime), in Unix
// nanoseconds, where its Sys is a *syscall.Stat_t (os.Stat's and Stat's
// are); else 0.
func ChangeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return ctime(st).UnixNano()
	}
	return 0
}

// FileMode converts a stat mode to an fs.FileMode as os.Stat does.
func FileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}

// fileInfo is an fs.FileInfo from fstatat.
type fileInfo struct {
	name string
	size int64
	mode fs.FileMode
	mod  time.Time
	sys  syscall.Stat_t
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return fi.mod }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any           { return &fi.sys }
