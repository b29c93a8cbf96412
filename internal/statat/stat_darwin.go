package statat

import (
	"syscall"
	"time"
)

// sys returns the *syscall.Stat_t os.Stat's Sys would carry, with the
// fields fi keeps (device, inode, mode, size and times).
func (fi *fileInfo) sys() *syscall.Stat_t {
	var st syscall.Stat_t
	st.Dev, st.Ino, st.Mode, st.Size = as(fi.dev, st.Dev), fi.ino, as(uint64(fi.raw), st.Mode), fi.size
	st.Atimespec, st.Ctimespec = syscall.NsecToTimespec(fi.atime), syscall.NsecToTimespec(fi.ctime)
	st.Mtimespec.Sec, st.Mtimespec.Nsec = as(uint64(fi.mtime), st.Mtimespec.Sec), as(uint64(fi.mtimeNsec), st.Mtimespec.Nsec)
	return &st
}

func modTime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Mtimespec.Sec), int64(st.Mtimespec.Nsec))
}

func ctime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}
