package statat

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysStat copies into out the fields of st that readers of os.Stat's
// Sys use.
func sysStat(out *syscall.Stat_t, st *unix.Stat_t) {
	out.Dev, out.Ino, out.Mode, out.Size = st.Dev, st.Ino, st.Mode, st.Size
	out.Atimespec = syscall.Timespec{Sec: st.Atim.Sec, Nsec: st.Atim.Nsec}
	out.Mtimespec = syscall.Timespec{Sec: st.Mtim.Sec, Nsec: st.Mtim.Nsec}
	out.Ctimespec = syscall.Timespec{Sec: st.Ctim.Sec, Nsec: st.Ctim.Nsec}
}

func modTime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Mtimespec.Sec), int64(st.Mtimespec.Nsec))
}

func ctime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}
