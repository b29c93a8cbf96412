//go:build linux

package sandbox

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock does not control changes of a file's metadata: chmod, chown,
// utimes and extended attributes work on any file the handler's user
// owns, outside what the policy grants too (chmod 0666 ~/.ssh/id_rsa,
// 0777 ~/.bashrc for other local users to write, or, for a skillpm
// running as root, /etc/passwd). So the filter sends chmod and utimes
// calls to the supervisor, which does them itself when the file is
// beneath a folder the policy lets the handler write and belongs to the
// handler's user, and answers EPERM otherwise; chown is a no-op success
// when it changes nothing and EPERM otherwise; setting or removing an
// extended attribute fails with EOPNOTSUPP, as on a file system without
// them. Inode flags (chattr's no-dump, sync, no-COW...), fs-verity (which
// makes a file's content unchangeable for good) and encryption policies
// are set by the file's owner through any descriptor, one opened for
// reading too: those ioctls fail with ENOTTY, as on a file system without
// them, and file_setattr with ENOSYS, as before Linux 6.17.
//
// The supervisor never acts on a path it read: it reads the path from the
// handler's memory, opens it (O_PATH, relative to the handler's working
// folder or the descriptor it names, following the final link as the call
// would), and then checks and changes the file that descriptor holds, by
// descriptor. A path the handler rewrites in between can only change which
// file is opened, and that file is checked.

// metaCall says how to decode one notified metadata call.
type metaCall struct {
	op       metaOp
	dirfd    int  // argument index of the folder descriptor, -1 for AT_FDCWD
	path     int  // argument index of the path, -1 for a descriptor call
	fd       int  // argument index of the descriptor (fchmod), else -1
	mode     int  // chmod: the mode; chown: the uid (gid follows)
	times    int  // utimes: the times pointer
	flags    int  // argument index of AT_* flags, -1 for none
	timeKind int  // utimes: timesSpec, timesVal or timesBuf
	nofollow bool // the call never follows a final link (lchown)
}

type metaOp int

const (
	opChmod metaOp = iota + 1
	opChown
	opUtimes
)

const (
	timesSpec = iota // struct timespec[2] (utimensat)
	timesVal         // struct timeval[2] (utimes, futimesat)
	timesBuf         // struct utimbuf (utime)
)

// metaCalls are the notified calls of every architecture; legacyMeta adds
// the old ones amd64 still has.
var metaCalls = map[int32]metaCall{
	unix.SYS_FCHMOD:    {op: opChmod, dirfd: -1, path: -1, fd: 0, mode: 1, flags: -1},
	unix.SYS_FCHMODAT:  {op: opChmod, dirfd: 0, path: 1, fd: -1, mode: 2, flags: -1},
	unix.SYS_FCHMODAT2: {op: opChmod, dirfd: 0, path: 1, fd: -1, mode: 2, flags: 3},
	unix.SYS_FCHOWN:    {op: opChown, dirfd: -1, path: -1, fd: 0, mode: 1, flags: -1},
	unix.SYS_FCHOWNAT:  {op: opChown, dirfd: 0, path: 1, fd: -1, mode: 2, flags: 4},
	unix.SYS_UTIMENSAT: {op: opUtimes, dirfd: 0, path: 1, fd: -1, times: 2, flags: 3, timeKind: timesSpec},
}

// createCalls create files, with the index of their mode argument: a
// mode with the set-user-ID or set-group-ID bit fails with EPERM, so that
// a handler cannot leave a program that runs as its user (or root, for a
// skillpm running as root) for others to start; openat2, whose mode is
// behind a pointer, fails with ENOSYS, as on kernels before 5.6, and
// callers fall back to openat. The emulated chmod drops those bits too.
func createCalls() map[uintptr]int {
	m := map[uintptr]int{unix.SYS_OPENAT: 3, unix.SYS_MKNODAT: 2}
	for nr, i := range legacyCreate {
		m[nr] = i
	}
	return m
}

// setID are the set-user-ID and set-group-ID bits.
const setID = unix.S_ISUID | unix.S_ISGID

// xattrWrites fail with EOPNOTSUPP.
var xattrWrites = []uintptr{
	unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR,
	unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT,
}

// inodeIoctls are the ioctl commands that set a file's inode flags,
// fs-verity or encryption policy; they fail with ENOTTY.
var inodeIoctls = []uint32{
	unix.FS_IOC_SETFLAGS,
	fsIOC32SetFlags,
	fsIOCFSSetXattr,
	fsIOCSetVersion,
	unix.FS_IOC_ENABLE_VERITY,
	unix.FS_IOC_SET_ENCRYPTION_POLICY,
}

// ioctl commands x/sys/unix does not define (linux/fs.h).
const (
	fsIOC32SetFlags = 0x40046602 // FS_IOC32_SETFLAGS: _IOW('f', 2, int)
	fsIOCFSSetXattr = 0x401c5820 // FS_IOC_FSSETXATTR: _IOW('X', 32, struct fsxattr)
	fsIOCSetVersion = 0x40087602 // FS_IOC_SETVERSION: _IOW('v', 2, long)
)

// metaNumbers are the system calls the supervisor decides.
func metaNumbers() []uintptr {
	var nrs []uintptr
	for nr := range metaCalls {
		nrs = append(nrs, uintptr(nr))
	}
	for nr := range legacyMeta {
		nrs = append(nrs, uintptr(nr))
	}
	return nrs
}

// metadata decides and, if allowed, does a notified metadata call of
// process pid; it returns the call's result: 0 or an errno.
func (s *supervisor) metadata(n *seccompNotif) unix.Errno {
	c, ok := metaCalls[n.nr]
	if !ok {
		c, ok = legacyMeta[n.nr]
	}
	if !ok {
		return unix.ENOSYS
	}
	pid, err := procPID(int(n.pid))
	if err != nil {
		return unix.ESRCH
	}
	arg := func(i int) uint64 { return n.args[i] }
	flags := 0
	if c.flags >= 0 {
		flags = int(int32(arg(c.flags)))
	}
	nofollow := c.nofollow || flags&unix.AT_SYMLINK_NOFOLLOW != 0
	// What the call names: a descriptor, or a path relative to a folder.
	var name string
	switch {
	case c.fd >= 0:
		name = "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(int(int32(arg(c.fd))))
	default:
		p := ""
		if c.op == opUtimes && arg(c.path) == 0 && (c.dirfd < 0 || int32(arg(c.dirfd)) == unix.AT_FDCWD) {
			return unix.EFAULT // no path and no descriptor
		}
		if !(c.op == opUtimes && arg(c.path) == 0) { // utimensat(fd, NULL): the descriptor itself
			var err error
			if p, err = readString(pid, arg(c.path)); err != nil {
				return unix.EFAULT
			}
		}
		base := "/proc/" + strconv.Itoa(pid) + "/cwd"
		if c.dirfd >= 0 && int32(arg(c.dirfd)) != unix.AT_FDCWD {
			base = "/proc/" + strconv.Itoa(pid) + "/fd/" + strconv.Itoa(int(int32(arg(c.dirfd))))
		}
		switch {
		case strings.HasPrefix(p, "/"):
			name = p
			// /proc/self is the caller here, not this process
			// (glibc's fchmodat(AT_SYMLINK_NOFOLLOW) is
			// chmod("/proc/self/fd/N")).
			for _, self := range []string{"/proc/self", "/proc/thread-self"} {
				if rest, ok := strings.CutPrefix(p, self); ok && (rest == "" || rest[0] == '/') {
					name = "/proc/" + strconv.Itoa(pid) + rest
				}
			}
		case p == "" && (flags&unix.AT_EMPTY_PATH != 0 || arg(c.path) == 0):
			name, nofollow = base, false // the descriptor's file (its magic link is followed)
		case p == "":
			return unix.ENOENT
		default:
			name = base + "/" + p
		}
	}
	var times []unix.Timespec
	if c.op == opUtimes && arg(c.times) != 0 {
		var err error
		if times, err = readTimes(pid, arg(c.times), c.timeKind); err != nil {
			return unix.EFAULT
		}
	}
	oflags := unix.O_PATH | unix.O_CLOEXEC
	if nofollow {
		oflags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(name, oflags, 0)
	if err != nil {
		return errnoOf(err)
	}
	defer unix.Close(fd)
	// Still waiting, so still alive: pid was the caller's all along, not
	// a number reused since.
	if !s.valid(n.id) {
		return unix.ESRCH
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return errnoOf(err)
	}
	if c.op == opChown {
		uid, gid := uint32(arg(c.mode)), uint32(arg(c.mode+1))
		if (uid == ^uint32(0) || uid == st.Uid) && (gid == ^uint32(0) || gid == st.Gid) {
			return 0 // changes nothing
		}
		return unix.EPERM
	}
	if !s.writable(fd, &st) || int(st.Uid) != os.Geteuid() {
		return unix.EPERM
	}
	empty := []byte{0}
	switch c.op {
	case opChmod:
		if st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return unix.EOPNOTSUPP // a link has no mode of its own on Linux
		}
		mode := uint32(arg(c.mode)) & (0o7777 &^ setID)
		// fchmodat2 is Linux 6.6; the sandbox needs Landlock ABI 4 (6.7).
		_, _, e := unix.Syscall6(unix.SYS_FCHMODAT2, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), uintptr(mode), unix.AT_EMPTY_PATH, 0, 0)
		return e
	case opUtimes:
		var tp uintptr
		if times != nil {
			tp = uintptr(unsafe.Pointer(&times[0]))
		}
		_, _, e := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), uintptr(unsafe.Pointer(&empty[0])), tp, unix.AT_EMPTY_PATH, 0, 0)
		return e
	}
	return unix.ENOSYS
}

// writable reports whether the file fd holds (st) is beneath one of the
// policy's writable folders (or is one of its writable files), by its
// path now. That path is where the file is in its own mount namespace,
// which need not be this one (a path through /proc/PID/root of another
// process reaches files of other namespaces), so it must also name that
// very file here (a deleted file's names none).
func (s *supervisor) writable(fd int, st *unix.Stat_t) bool {
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil || !filepath.IsAbs(p) {
		return false
	}
	var here unix.Stat_t
	if err := unix.Lstat(p, &here); err != nil || here.Dev != st.Dev || here.Ino != st.Ino {
		return false
	}
	for _, root := range s.writeRoots {
		if p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") {
			return true
		}
	}
	return false
}

// procPID returns the number /proc knows thread pid (of this process's
// PID namespace) by: the launcher has a PID namespace of its own but the
// host's /proc. A pidfd's fdinfo gives the pid in the namespace of the
// /proc it is read from. Before Linux 6.9 (no PIDFD_THREAD) a pidfd names
// only a process, not its other threads (libuv's, Go's): then the thread
// is looked up among this process's descendants (see procPIDWalk).
func procPID(pid int) (int, error) {
	if samePIDNamespace() {
		return pid, nil
	}
	fd, err := unix.PidfdOpen(pid, pidfdThread) // pid is a thread's
	if err == unix.EINVAL {
		return procPIDWalk(pid)
	}
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	if n, ok := statusField(b, "Pid:"); ok && len(n) == 1 && n[0] > 0 {
		return n[0], nil
	}
	return 0, unix.ESRCH
}

// pidfdThread is PIDFD_THREAD (Linux 6.9), which x/sys/unix does not
// define: pidfd_open of a thread that does not lead its process.
const pidfdThread = unix.O_EXCL

// procPIDWalk finds thread pid (of this process's PID namespace) among
// this process's descendants in /proc, by the NSpid line of each thread's
// status: the number at this namespace's level is pid. The launcher is
// PID 1 of its namespace, so every process of the namespace descends from
// it (orphans are reparented to it), and no two of them have the same
// number there. The caller checks that the notifying thread lived
// throughout (valid), so the thread found is that one.
func procPIDWalk(pid int) (int, error) {
	self, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, err
	}
	ns, ok := statusField(self, "NSpid:")
	if !ok || len(ns) == 0 {
		return 0, unix.ESRCH
	}
	level := len(ns) - 1 // this process's namespace
	seen := map[int]bool{}
	var walk func(proc string) int
	walk = func(proc string) int {
		tasks, _ := os.ReadDir(proc + "/task")
		for _, t := range tasks {
			task := proc + "/task/" + t.Name()
			if proc != "/proc/self" {
				b, err := os.ReadFile(task + "/status")
				if n, ok := statusField(b, "NSpid:"); err == nil && ok && len(n) > level && n[level] == pid {
					return atoi(t.Name())
				}
			}
			b, _ := os.ReadFile(task + "/children")
			for _, c := range strings.Fields(string(b)) {
				if n := atoi(c); n > 0 && !seen[n] {
					seen[n] = true
					if found := walk("/proc/" + c); found > 0 {
						return found
					}
				}
			}
		}
		return 0
	}
	if found := walk("/proc/self"); found > 0 {
		return found, nil
	}
	return 0, unix.ESRCH
}

// statusField returns the numbers of the line of a /proc status (or
// fdinfo) file that starts with name.
func statusField(b []byte, name string) ([]int, bool) {
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name); ok {
			var n []int
			for _, f := range strings.Fields(v) {
				i, err := strconv.Atoi(f)
				if err != nil {
					return nil, false
				}
				n = append(n, i)
			}
			return n, true
		}
	}
	return nil, false
}

// atoi is s as a number, 0 if it is not one.
func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// samePIDNamespace reports whether /proc numbers processes as this
// process does.
func samePIDNamespace() bool {
	self, err := os.Readlink("/proc/self")
	return err == nil && self == strconv.Itoa(os.Getpid())
}

// valid reports whether notification id is still pending (its process
// has not died, its pid not been reused).
func (s *supervisor) valid(id uint64) bool {
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(s.fd), unix.SECCOMP_IOCTL_NOTIF_ID_VALID, uintptr(unsafe.Pointer(&id)))
	return e == 0
}

// readString reads a NUL-terminated path from process pid's memory.
func readString(pid int, addr uint64) (string, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return "", err
	}
	defer f.Close()
	var out []byte
	for len(out) < unix.PathMax {
		// Up to the end of the page: the next one may not be mapped.
		n := 4096 - int(addr%4096)
		buf := make([]byte, n)
		got, err := f.ReadAt(buf, int64(addr))
		if got == 0 && err != nil {
			return "", err
		}
		if i := strings.IndexByte(string(buf[:got]), 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf[:got]...)
		addr += uint64(got)
	}
	return "", unix.ENAMETOOLONG
}

// readTimes reads the two times of a utimes call from process pid's
// memory, as timespecs (UTIME_NOW and UTIME_OMIT pass through).
func readTimes(pid int, addr uint64, kind int) ([]unix.Timespec, error) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 32
	if kind == timesBuf {
		size = 16
	}
	b := make([]byte, size)
	if _, err := f.ReadAt(b, int64(addr)); err != nil {
		return nil, err
	}
	w := func(i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }
	switch kind {
	case timesVal:
		return []unix.Timespec{{Sec: w(0), Nsec: w(1) * 1000}, {Sec: w(2), Nsec: w(3) * 1000}}, nil
	case timesBuf:
		return []unix.Timespec{{Sec: w(0)}, {Sec: w(1)}}, nil
	}
	return []unix.Timespec{{Sec: w(0), Nsec: w(1)}, {Sec: w(2), Nsec: w(3)}}, nil
}

// errnoOf is err's errno, EPERM if it has none.
func errnoOf(err error) unix.Errno {
	if e, ok := err.(unix.Errno); ok {
		return e
	}
	return unix.EPERM
}
