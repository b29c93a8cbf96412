//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter every confined handler runs under. Landlock decides
// which files may be opened and executed and which TCP ports reached; the
// filter closes what Landlock does not control:
//
//   - sockets: socket(AF_UNIX, …) fails with EACCES (Landlock does not
//     control connect() to a pathname unix socket, so /var/run/docker.sock
//     would be a way out), and with no network every socket() fails with
//     EACCES (UDP, raw and netlink sockets are not Landlock's either). The
//     domain is a scalar argument, so the check is race-free; socketpair
//     stays allowed (it reaches nothing outside). io_uring_setup fails with
//     ENOSYS, since an io_uring can create sockets without socket(2);
//   - exec (allow_subprocess: false): Landlock's execute right decides
//     which files execve may start, but the interpreter's ELF loader must
//     be executable for the interpreter to start at all, and the loader
//     runs any readable program given as its argument
//     (ld-linux-x86-64.so.2 /bin/sh). So every execve and execveat is sent
//     to skillpm (SECCOMP_RET_USER_NOTIF), which lets the first one through
//     (the handler itself) and answers every later one EPERM;
//   - other processes: prlimit64 on any process but the caller fails with
//     EPERM. Landlock scopes ptrace and signals, not resource limits, and
//     without a PID namespace a handler could otherwise lower the limits
//     of every process of its user (RLIMIT_CPU kills). Without a PID
//     namespace (guardTID set) the scheduling calls are held to the
//     caller too: sched_setaffinity, sched_setscheduler, sched_setparam
//     and sched_setattr only on pid 0, setpriority and ioprio_set only on
//     (the process, 0), or a handler could make every process of its user
//     SCHED_IDLE;
//   - System V IPC (guardTID set): every shm*, msg* and sem* call fails
//     with ENOSYS; with namespaces the sandbox has an IPC namespace of
//     its own instead;
//   - keyrings: keyctl, add_key and request_key fail with ENOSYS, since
//     the user's and the session's keyrings (and the keys in them) are
//     within a handler's reach otherwise;
//   - skillpm's forking thread (guardTID, without namespaces): it sits in
//     the handler's Landlock domain, so Landlock lets signals to it
//     through, and a thread-directed SIGKILL or SIGSTOP acts on all of
//     skillpm. Every way of naming that thread as a signal's target fails
//     with EPERM: kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo
//     and pidfd_open with its id, F_SETOWN with its id, and F_SETOWN_EX,
//     FIOSETOWN and SIOCSPGRP, whose target is behind a pointer, whatever
//     they name; pidfd_send_signal fails with ENOSYS (a /proc/TID folder
//     is a pidfd too). Reading its memory or attaching to it is refused
//     by the kernel: skillpm is not dumpable, see Start.
//
// Exec decisions depend only on the order of the calls, never on their
// (racy) pointer arguments; metadata calls (chmod, chown, utimes) are done
// by the supervisor on the file it opened, never continued (see
// metadata). Calls of another ABI (i386 int 0x80, x32) kill the process.

// fioSetOwn is FIOSETOWN (asm-generic/sockios.h), which x/sys/unix does
// not define.
const fioSetOwn = 0x8901

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

// auditArch is the AUDIT_ARCH of this build, 0 where the filter is not
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

// filterSpec says what the filter refuses or sends to the supervisor.
type filterSpec struct {
	noSockets     bool // socket() fails with EACCES, whatever the domain
	noUnixSockets bool // socket(AF_UNIX, …) fails with EACCES
	notifyExec    bool // execve and execveat are notified
	notifyMeta    bool // chmod, chown and utimes calls are notified (see metadata)
	// guardTID is a thread of skillpm inside the sandbox's Landlock
	// domain that the sandbox must not signal; 0 for none.
	guardTID int
}

// specFor is the filter for pol. notifyExec is set by the caller.
func specFor(pol Policy) filterSpec {
	return filterSpec{
		noSockets:     pol.Net == NetNone || (pol.Net == NetProxy && !NeedsLauncher(pol)),
		noUnixSockets: true,
		notifyMeta:    true,
	}
}

// notifies reports whether the filter sends calls to a supervisor.
func (s filterSpec) notifies() bool { return s.notifyExec || s.notifyMeta }

// program is the BPF program for s.
func (s filterSpec) program(arch uint32) []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	const offNR, offArch, offArg0 = 0, 4, 16 // struct seccomp_data; args[0]'s low word (little endian)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	p := []unix.SockFilter{
		{Code: ld, K: offArch},
		{Code: jeq, Jt: 1, Jf: 0, K: arch},
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
		{Code: ld, K: offNR},
		{Code: jge, Jt: 0, Jf: 1, K: 0x40000000}, // x32 (__X32_SYSCALL_BIT) on amd64
		{Code: ret, K: unix.SECCOMP_RET_KILL_PROCESS},
	}
	// rule appends: if nr == sys, run body (which ends in a return).
	rule := func(sys uintptr, body ...unix.SockFilter) {
		p = append(p, unix.SockFilter{Code: jeq, Jt: 0, Jf: uint8(len(body)), K: uint32(sys)})
		p = append(p, body...)
	}
	// argIs appends: if the low word of argument i (a pid_t or an int
	// command, which the kernel truncates to 32 bits) is v, fail with
	// EPERM, else go on to the next rule.
	argIs := func(i int, v uint32) []unix.SockFilter {
		return []unix.SockFilter{
			{Code: ld, K: uint32(offArg0 + 8*i)},
			{Code: jeq, Jt: 0, Jf: 1, K: v},
			{Code: ret, K: errno(unix.EPERM)},
		}
	}
	// ruleThen appends: if nr == sys, run body, then reload the number
	// (body does not always return) and go on.
	ruleThen := func(sys uintptr, body ...unix.SockFilter) {
		body = append(body, unix.SockFilter{Code: ld, K: offNR})
		rule(sys, body...)
	}
	rule(unix.SYS_IO_URING_SETUP, unix.SockFilter{Code: ret, K: errno(unix.ENOSYS)})
	// The kernel's keyrings are the user's, not the sandbox's: keys of
	// the user and session keyrings (Kerberos tickets, ...) would be
	// readable. As if the kernel had none.
	for _, sys := range []uintptr{unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY} {
		rule(sys, unix.SockFilter{Code: ret, K: errno(unix.ENOSYS)})
	}
	rule(unix.SYS_PRLIMIT64,
		unix.SockFilter{Code: ld, K: offArg0},
		unix.SockFilter{Code: jeq, Jt: 1, Jf: 0, K: 0},
		unix.SockFilter{Code: ret, K: errno(unix.EPERM)},
		unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
	if tid := uint32(s.guardTID); tid != 0 {
		for _, sys := range []uintptr{unix.SYS_KILL, unix.SYS_TKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_PIDFD_OPEN} {
			ruleThen(sys, argIs(0, tid)...)
		}
		for _, sys := range []uintptr{unix.SYS_TGKILL, unix.SYS_RT_TGSIGQUEUEINFO} {
			ruleThen(sys, argIs(1, tid)...)
		}
		ruleThen(unix.SYS_FCNTL, append(argIs(1, unix.F_SETOWN_EX),
			unix.SockFilter{Code: jeq, Jt: 0, Jf: 3, K: unix.F_SETOWN}, // the command is still loaded
			unix.SockFilter{Code: ld, K: offArg0 + 16},
			unix.SockFilter{Code: jeq, Jt: 0, Jf: 1, K: tid},
			unix.SockFilter{Code: ret, K: errno(unix.EPERM)})...)
		ruleThen(unix.SYS_IOCTL, append(argIs(1, fioSetOwn), argIs(1, unix.SIOCSPGRP)...)...)
		// Without a PID namespace every process of the user is in
		// reach of the scheduling calls, which Landlock does not scope:
		// only the caller's own settings may change.
		self := func(i int) []unix.SockFilter {
			return []unix.SockFilter{
				{Code: ld, K: uint32(offArg0 + 8*i)},
				{Code: jeq, Jt: 1, Jf: 0, K: 0},
				{Code: ret, K: errno(unix.EPERM)},
				{Code: ret, K: unix.SECCOMP_RET_ALLOW},
			}
		}
		for _, sys := range []uintptr{unix.SYS_SCHED_SETAFFINITY, unix.SYS_SCHED_SETSCHEDULER, unix.SYS_SCHED_SETPARAM, unix.SYS_SCHED_SETATTR} {
			rule(sys, self(0)...)
		}
		// setpriority and ioprio_set name a process, a process group
		// or a user: only (PRIO_PROCESS or IOPRIO_WHO_PROCESS, 0).
		for _, c := range []struct {
			sys     uintptr
			process uint32
		}{{unix.SYS_SETPRIORITY, unix.PRIO_PROCESS}, {unix.SYS_IOPRIO_SET, 1}} {
			rule(c.sys,
				unix.SockFilter{Code: ld, K: offArg0},
				unix.SockFilter{Code: jeq, Jt: 0, Jf: 2, K: c.process},
				unix.SockFilter{Code: ld, K: offArg0 + 8},
				unix.SockFilter{Code: jeq, Jt: 1, Jf: 0, K: 0},
				unix.SockFilter{Code: ret, K: errno(unix.EPERM)},
				unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
		}
		// Nor System V IPC: its objects are shared by every process of
		// the IPC namespace and checked by user only (other programs'
		// shared memory, message queues and semaphores), and only a
		// namespace, which this sandbox does not have, makes them
		// private. As if the kernel had none.
		for _, sys := range []uintptr{
			unix.SYS_SHMGET, unix.SYS_SHMAT, unix.SYS_SHMCTL,
			unix.SYS_MSGGET, unix.SYS_MSGSND, unix.SYS_MSGRCV, unix.SYS_MSGCTL,
			unix.SYS_SEMGET, unix.SYS_SEMOP, unix.SYS_SEMTIMEDOP, unix.SYS_SEMCTL,
		} {
			rule(sys, unix.SockFilter{Code: ret, K: errno(unix.ENOSYS)})
		}
		// A /proc/PID folder is a pidfd too, and one opened by the
		// thread's id names it; pidfd_send_signal is refused as missing
		// (ENOSYS), so that programs fall back to kill.
		rule(unix.SYS_PIDFD_SEND_SIGNAL, unix.SockFilter{Code: ret, K: errno(unix.ENOSYS)})
	}
	switch {
	case s.noSockets:
		rule(unix.SYS_SOCKET, unix.SockFilter{Code: ret, K: errno(unix.EACCES)})
	case s.noUnixSockets:
		rule(unix.SYS_SOCKET,
			unix.SockFilter{Code: ld, K: offArg0},
			unix.SockFilter{Code: jeq, Jt: 0, Jf: 1, K: unix.AF_UNIX},
			unix.SockFilter{Code: ret, K: errno(unix.EACCES)},
			unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
	}
	if s.notifyMeta {
		for _, sys := range metaNumbers() {
			rule(sys, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
		}
		for _, sys := range xattrWrites {
			rule(sys, unix.SockFilter{Code: ret, K: errno(unix.EOPNOTSUPP)})
		}
		// The inode flag ioctls: the command is a plain argument.
		body := []unix.SockFilter{{Code: ld, K: offArg0 + 8}}
		for i, cmd := range inodeIoctls {
			body = append(body, unix.SockFilter{Code: jeq, Jt: uint8(len(inodeIoctls) - i), Jf: 0, K: cmd})
		}
		rule(unix.SYS_IOCTL, append(body,
			unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW},
			unix.SockFilter{Code: ret, K: errno(unix.ENOTTY)})...)
		rule(unix.SYS_FILE_SETATTR, unix.SockFilter{Code: ret, K: errno(unix.ENOSYS)})
		for sys, i := range createCalls() {
			rule(sys,
				unix.SockFilter{Code: ld, K: uint32(offArg0 + 8*i)},
				unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, Jt: 0, Jf: 1, K: setID},
				unix.SockFilter{Code: ret, K: errno(unix.EPERM)},
				unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
		}
		rule(unix.SYS_OPENAT2, unix.SockFilter{Code: ret, K: errno(unix.ENOSYS)})
	}
	if s.notifyExec {
		rule(unix.SYS_EXECVE, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
		rule(unix.SYS_EXECVEAT, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_USER_NOTIF})
	}
	return append(p, unix.SockFilter{Code: ret, K: unix.SECCOMP_RET_ALLOW})
}

// installFilter installs s's filter on the calling thread (locked, with
// no_new_privs set); processes started from it inherit the filter. It
// returns the notification listener, or -1 if the filter notifies
// nothing.
func installFilter(s filterSpec) (int, error) {
	arch := auditArch()
	if arch == 0 {
		return -1, fmt.Errorf("seccomp filter is not implemented on %s", runtime.GOARCH)
	}
	f := s.program(arch)
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	var flags uintptr
	if s.notifies() {
		flags = unix.SECCOMP_FILTER_FLAG_NEW_LISTENER
	}
	fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, flags, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(f)
	if errno != 0 {
		return -1, fmt.Errorf("seccomp: %w", errno)
	}
	if !s.notifies() {
		return -1, nil
	}
	return int(fd), nil
}

// supervisor answers a filter's notifications.
type supervisor struct {
	fd          int
	execOnce    bool // every exec after the first fails with EPERM
	firstExec   bool // the first exec is still to come
	onFirstExec func(pid int) error
	// writeRoots are the folders and files the policy lets the handler
	// write (resolved), where it may change modes and times.
	writeRoots []string
}

// newSupervisor returns the supervisor for pol's filter.
func newSupervisor(pol Policy, execOnce bool) *supervisor {
	s := &supervisor{execOnce: execOnce}
	for _, r := range pol.Rules {
		if r.Exact && r.Access&Write != 0 { // not /dev/null and the like
			s.writeRoots = append(s.writeRoots, r.Path)
		}
	}
	return s
}

// answer decides one notification: CONTINUE, or the call's result.
func (s *supervisor) answer(n *seccompNotif) seccompNotifResp {
	if n.nr != unix.SYS_EXECVE && n.nr != unix.SYS_EXECVEAT {
		resp := seccompNotifResp{id: n.id}
		if e := s.metadata(n); e != 0 {
			resp.error = -int32(e)
		}
		return resp
	}
	resp := seccompNotifResp{id: n.id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	deny := func() { resp.flags, resp.error = 0, -int32(unix.EPERM) }
	switch {
	case s.firstExec:
		s.firstExec = false
		if s.onFirstExec != nil && s.onFirstExec(int(n.pid)) != nil {
			deny() // e.g. no process cap, no run
		}
	case s.execOnce:
		deny()
	}
	return resp
}

// run answers notifications until no process uses the filter any more.
func (s *supervisor) run() {
	defer unix.Close(s.fd)
	for {
		pfd := []unix.PollFd{{Fd: int32(s.fd), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, -1); err != nil {
			if err == unix.EINTR {
				continue
			}
			return
		}
		if pfd[0].Revents&unix.POLLIN == 0 {
			return // POLLHUP: no process uses the filter any more
		}
		var n seccompNotif
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(s.fd), unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); errno != 0 {
			if errno == unix.EINTR || errno == unix.ENOENT {
				continue // interrupted, or the caller died before we read it
			}
			return
		}
		resp := s.answer(&n)
		unix.Syscall(unix.SYS_IOCTL, uintptr(s.fd), unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}
}

// applyFilter installs s's filter on the calling thread and, if it
// notifies, starts its supervisor, with a second P to continue on. With
// ownThread the supervisor is already running on a thread of its own
// when applyFilter returns (the launcher needs that, see Launch);
// otherwise it is an ordinary goroutine, whose thread returns to the
// runtime's pool afterwards.
func applyFilter(s filterSpec, sup *supervisor, ownThread bool) error {
	fd, err := installFilter(s)
	if err != nil || fd < 0 {
		return err
	}
	sup.fd, sup.firstExec = fd, true
	if runtime.GOMAXPROCS(0) < 2 {
		runtime.GOMAXPROCS(2)
	}
	if !ownThread {
		go sup.run()
		return nil
	}
	ready := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the sandbox
		close(ready)
		sup.run()
	}()
	<-ready
	return nil
}
