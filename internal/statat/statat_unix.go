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
	fi := &fileInfo{name: path.Base(name), size: st.Size, mode: FileMode(uint32(st.Mode)), raw: uint32(st.Mode),
		dev: uint64(st.Dev), ino: st.Ino, atime: st.Atim.Nano(), ctime: st.Ctim.Nano(),
		mtime: int64(st.Mtim.Sec), mtimeNsec: int32(st.Mtim.Nsec)}
	return fi, nil
}

// ChangeTime returns fi's status-change time (ctime), in Unix
// nanoseconds, where it has one (Stat's and os.Stat's have); else 0.
func ChangeTime(fi fs.FileInfo) int64 {
	_, ctime, _ := ChangeID(fi)
	return ctime
}

// ChangeID returns fi's inode number and status-change time (ctime, Unix
// nanoseconds), and whether it has them: Stat's and os.Stat's have.
// Unlike the modification time, ctime cannot be set by a program (utimes
// itself moves it), and any write, rename, link or chmod of the file
// moves it.
func ChangeID(fi fs.FileInfo) (ino uint64, changed int64, ok bool) {
	if fi, ok := fi.(*fileInfo); ok {
		return fi.ino, fi.ctime, true
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, ctime(st).UnixNano(), true
	}
	return 0, 0, false
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

// fileInfo is an fs.FileInfo from fstatat. It keeps only what readers
// of os.Stat's answers here use, in 80 bytes rather than a whole
// Stat_t's 200: a warm listing holds two thousand. Sys builds a
// *syscall.Stat_t of them on each call; ChangeID reads them directly.
type fileInfo struct {
	name         string
	size         int64
	mode         fs.FileMode
	raw          uint32 // st_mode
	dev, ino     uint64
	atime, ctime int64 // Unix nanoseconds
	// The modification time as seconds and nanoseconds, as os.Stat's
	// ModTime has it: one that int64 nanoseconds do not hold (before
	// 1678, after 2262) can be set, unlike ctime, and atime's is read by
	// no one here.
	mtime     int64
	mtimeNsec int32
}

func (fi *fileInfo) Name() string       { return fi.name }
func (fi *fileInfo) Size() int64        { return fi.size }
func (fi *fileInfo) Mode() fs.FileMode  { return fi.mode }
func (fi *fileInfo) ModTime() time.Time { return time.Unix(fi.mtime, int64(fi.mtimeNsec)) }
func (fi *fileInfo) IsDir() bool        { return fi.mode.IsDir() }
func (fi *fileInfo) Sys() any           { return fi.sys() }

// as converts v to the integer type of like: the stat fields' types
// differ between systems and architectures.
func as[T ~int32 | ~int64 | ~uint16 | ~uint32 | ~uint64](v uint64, like T) T { return T(v) }
