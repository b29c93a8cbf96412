//go:build linux

package sandbox

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Raw Landlock system calls through golang.org/x/sys/unix. The launcher
// restricts only its own, locked thread right before it forks the handler,
// so it does not need go-landlock's all-threads machinery (psx, which with
// cgo wraps pthread_create in the whole binary).

// rulesetAttr is struct landlock_ruleset_attr up to ABI 7 (fs, net,
// scoped).
type rulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

// ruleNetPort is LANDLOCK_RULE_NET_PORT (x/sys/unix does not define it).
const ruleNetPort = 2

// netPortAttr is struct landlock_net_port_attr.
type netPortAttr struct {
	allowed uint64
	port    uint64
}

// fileRights are the rights Landlock accepts on a rule for a file (not a
// folder).
const fileRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV

// abiVersion returns the kernel's Landlock ABI version, 0 if none.
func abiVersion() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// handledFS is every filesystem right the ABI knows.
func handledFS(abi int) uint64 {
	fs := uint64(unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE |
		unix.LANDLOCK_ACCESS_FS_READ_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		fs |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		fs |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		fs |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	return fs
}

// rights maps an Access to Landlock rights.
func rights(a Access) uint64 {
	var r uint64
	if a&Read != 0 {
		r |= unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	}
	if a&Write != 0 {
		r |= unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
			unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
			unix.LANDLOCK_ACCESS_FS_MAKE_SYM | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
			unix.LANDLOCK_ACCESS_FS_REFER | unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	if a&Exec != 0 {
		r |= unix.LANDLOCK_ACCESS_FS_EXECUTE
	}
	return r
}

// restrict applies pol's Landlock rules to the calling thread, which must
// be locked to its goroutine; its children inherit them.
func restrict(pol Policy) error {
	abi := abiVersion()
	if abi < 1 {
		return fmt.Errorf("landlock: not available in this kernel")
	}
	attr := rulesetAttr{handledFS: handledFS(abi)}
	size := unsafe.Sizeof(uint64(0)) // ABI 1-3: fs only
	if abi >= 4 && pol.Net != NetAll {
		attr.handledNet = unix.LANDLOCK_ACCESS_NET_CONNECT_TCP | unix.LANDLOCK_ACCESS_NET_BIND_TCP
		size = 2 * unsafe.Sizeof(uint64(0))
	}
	if abi >= 6 {
		// No connecting to abstract unix sockets or signalling processes
		// outside the sandbox.
		attr.scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: create ruleset: %w", errno)
	}
	defer unix.Close(int(fd))

	for _, r := range pol.Rules {
		if err := addPathRule(int(fd), r, attr.handledFS); err != nil {
			return err
		}
	}
	if pol.Net == NetProxy && pol.ProxyPort > 0 && attr.handledNet != 0 {
		na := netPortAttr{allowed: unix.LANDLOCK_ACCESS_NET_CONNECT_TCP, port: uint64(pol.ProxyPort)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, ruleNetPort, uintptr(unsafe.Pointer(&na)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock: allow the proxy port %d: %w", pol.ProxyPort, errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: restrict: %w", errno)
	}
	return nil
}

// pathHandle is an O_PATH descriptor of a rule's path.
type pathHandle struct {
	fd  int
	dir bool
}

// systemHandles keeps the descriptors of the system paths every policy
// grants open for the life of the process (close-on-exec), so that a run
// does not open the same two dozen paths again.
var (
	systemHandlesMu sync.Mutex
	systemHandles   = map[string]pathHandle{}
)

// openPath opens path with O_PATH (following symlinks); close reports
// whether the caller must close the descriptor.
func openPath(path string) (h pathHandle, close bool, err error) {
	system := existingSystem()[path]
	if system {
		systemHandlesMu.Lock()
		defer systemHandlesMu.Unlock()
		if h, ok := systemHandles[path]; ok {
			return h, false, nil
		}
	}
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return h, false, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return h, false, err
	}
	h = pathHandle{fd: fd, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR}
	if system {
		systemHandles[path] = h
		return h, false, nil
	}
	return h, true, nil
}

// openExact opens path with O_PATH, failing with ELOOP if a symbolic link
// is on it.
func openExact(path string) (pathHandle, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return pathHandle{}, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return pathHandle{}, err
	}
	return pathHandle{fd: fd, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR}, nil
}

func addPathRule(rulesetFD int, r Rule, handled uint64) error {
	var h pathHandle
	var mustClose bool
	var err error
	if r.Exact {
		h, err = openExact(r.Path)
		mustClose = true
		if err == unix.ELOOP {
			return fmt.Errorf("landlock: %s has become a link since the policy was built", r.Path)
		}
	} else {
		h, mustClose, err = openPath(r.Path)
	}
	if err != nil {
		return nil // gone since the policy was built: nothing to grant
	}
	if mustClose {
		defer unix.Close(h.fd)
	}
	allowed := rights(r.Access) & handled
	if !h.dir {
		allowed &= fileRights
	}
	if allowed == 0 {
		return nil
	}
	pb := unix.LandlockPathBeneathAttr{Allowed_access: allowed, Parent_fd: int32(h.fd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(rulesetFD), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&pb)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock: allow %s: %w", r.Path, errno)
	}
	return nil
}
