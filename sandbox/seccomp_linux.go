//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Exec control for allow_subprocess: false. Landlock's execute right
// decides which files execve may start, but the interpreter's ELF loader
// must be executable for the interpreter to start at all, and the loader
// runs any readable program given as its argument
// (ld-linux-x86-64.so.2 /bin/sh). So the launcher also installs a seccomp
// filter on the thread that starts the handler: every execve and
// execveat of the sandbox is sent to the launcher (SECCOMP_RET_USER_NOTIF),
// which lets the first one through (the handler itself) and answers
// every later one EPERM. The decision depends only on the order of the
// calls, never on their (racy) pointer arguments, so letting the first
// continue is sound. Calls of another ABI (i386 int 0x80, x32) kill the
// process.

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// auditArch is the AUDIT_ARCH of this build, 0 where exec control is not
// implemented.
func auditArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// execFilter is the BPF program: wrong ABI kills, execve/execveat notify,
// everything else is allowed.
func execFilter(arch uint32) []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	const offNR, offArch = 0, 4
	return []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, Jt: 1, Jf: 0, K: arch},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ld, K: offNR},
		{Code: jge, Jt: 0, Jf: 1, K: 0x40000000}, // x32 (__X32_SYSCALL_BIT) on amd64
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: jeq, Jt: 2, Jf: 0, K: uint32(unix.SYS_EXECVE)},
		{Code: jeq, Jt: 1, Jf: 0, K: uint32(unix.SYS_EXECVEAT)},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF},
	}
}

// execOnce installs the filter on the calling thread (locked, with
// no_new_privs set) and starts the goroutine that answers it. Processes
// started from this thread inherit the filter.
//
// The handler's execve waits for the supervisor, so the supervisor runs
// on a thread of its own, already started, with a second P to continue
// on, and the launcher does not start the handler with vfork (see
// Launch).
func execOnce() error {
	fd, err := installExecFilter()
	if err != nil {
		return err
	}
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		close(ready)
		superviseExec(fd)
	}()
	<-ready
	return nil
}

// installExecFilter installs the exec filter on the calling thread and
// returns its listener.
func installExecFilter() (int, error) {
	arch := auditArch()
	if arch == 0 {
		return -1, fmt.Errorf("exec control is not implemented on %s", runtime.GOARCH)
	}
	f := execFilter(arch)
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(f)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp: %w", errno)
	}
	return int(fd), nil
}

// superviseExec answers the filter's notifications: the first exec
// continues, every later one fails with EPERM. It returns when the
// listener fails (the sandbox is gone).
func superviseExec(fd int) {
	first := true
	for {
		var n seccompNotif
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); errno != 0 {
			if errno == unix.EINTR || errno == unix.ENOENT {
				continue // interrupted, or the caller died before we read it
			}
			return
		}
		resp := seccompNotifResp{id: n.id}
		if first {
			first = false
			resp.flags = unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE
		} else {
			resp.error = -int32(unix.EPERM)
		}
		unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}
}
