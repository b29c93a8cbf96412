package sandbox

import "golang.org/x/sys/unix"

// legacyMeta are amd64's old metadata calls, which arm64 does not have.
var legacyMeta = map[int32]metaCall{
	unix.SYS_CHMOD:     {op: opChmod, dirfd: -1, path: 0, fd: -1, mode: 1, flags: -1},
	unix.SYS_CHOWN:     {op: opChown, dirfd: -1, path: 0, fd: -1, mode: 1, flags: -1},
	unix.SYS_LCHOWN:    {op: opChown, dirfd: -1, path: 0, fd: -1, mode: 1, flags: -1, nofollow: true},
	unix.SYS_UTIME:     {op: opUtimes, dirfd: -1, path: 0, fd: -1, times: 1, flags: -1, timeKind: timesBuf},
	unix.SYS_UTIMES:    {op: opUtimes, dirfd: -1, path: 0, fd: -1, times: 1, flags: -1, timeKind: timesVal},
	unix.SYS_FUTIMESAT: {op: opUtimes, dirfd: 0, path: 1, fd: -1, times: 2, flags: -1, timeKind: timesVal},
}

// legacyCreate are amd64's old calls that create files, and the index of
// their mode argument.
var legacyCreate = map[uintptr]int{unix.SYS_OPEN: 2, unix.SYS_CREAT: 1, unix.SYS_MKNOD: 1}
