package statat

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// sysStat copies the fields of st that readers of os.Stat's Sys use.
func sysStat(st *unix.Stat_t) *syscall.Stat_t {
	return &syscall.Stat_t{
		Dev: st.Dev, Ino: st.Ino, Mode: st.Mode, Size: st.Size,
		Atimespec: syscall.Timespec{Sec: st.Atim.Sec, Nsec: st.Atim.Nsec},
		Mtimespec: syscall.Timespec{Sec: st.Mtim.Sec, Nsec: st.Mtim.Nsec},
		Ctimespec: syscall.Timespec{Sec: st.Ctim.Sec, Nsec: st.Ctim.Nsec},
	}
}

func modTime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Mtimespec.Sec), int64(st.Mtimespec.Nsec))
}

func ctime(st *syscall.Stat_t) time.Time {
	return time.Unix(int64(st.Ctimespec.Sec), int64(st.Ctimespec.Nsec))
}
