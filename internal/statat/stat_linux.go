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
		Atim: syscall.Timespec{Sec: st.Atim.Sec, Nsec: st.Atim.Nsec},
		Mtim: syscall.Timespec{Sec: st.Mtim.Sec, Nsec: st.Mtim.Nsec},
		Ctim: syscall.Timespec{Sec: st.Ctim.Sec, Nsec: st.Ctim.Nsec},
	}
}

func modTime(st *syscall.Stat_t) time.Time { return time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec)) }

func ctime(st *syscall.Stat_t) time.Time { return time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec)) }
