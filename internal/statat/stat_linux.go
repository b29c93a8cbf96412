package statat

import (
	"syscall"
	"time"
)

// sys returns the *syscall.Stat_t os.Stat's Sys would carry, with the
// fields fi keeps (device, inode, mode, size and times).
func (fi *fileInfo) sys() *syscall.Stat_t {
	var st syscall.Stat_t
	st.Dev, st.Ino, st.Mode, st.Size = as(fi.dev, st.Dev), fi.ino, fi.raw, fi.size
	st.Atim, st.Ctim = syscall.NsecToTimespec(fi.atime), syscall.NsecToTimespec(fi.ctime)
	st.Mtim.Sec, st.Mtim.Nsec = as(uint64(fi.mtime), st.Mtim.Sec), as(uint64(fi.mtimeNsec), st.Mtim.Nsec)
	return &st
}

func modTime(st *syscall.Stat_t) time.Time { return time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)) }

func ctime(st *syscall.Stat_t) time.Time { return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)) }
