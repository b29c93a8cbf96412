//go:build linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// NeedsLauncher reports whether pol must run through the launcher
// (Wrap): only a proxy policy does, for the forwarder inside its network
// namespace. Every other policy is started directly (Start).
func NeedsLauncher(pol Policy) bool {
	return pol.Net == NetProxy && pol.ProxySocket != "" && pol.ProxyPort > 0
}

// Start starts cmd (not yet started; Path, Args, Env, Dir and
// SysProcAttr set) confined by pol without a launcher, which is what
// makes a confined run cheap: no second Go program starts. The handler
// itself is created in new user and PID namespaces (SysProcAttr), so it
// is PID 1 of its namespace and everything it starts dies with it.
// Landlock, no_new_privs and the seccomp filter (see specFor) are
// applied to one dedicated thread of this process, which forks the
// handler (the child inherits them) and then waits, unused, until done
// is called, so that Pdeathsig (tied to the forking thread) holds for
// the whole run; then the thread ends with its goroutine. The filter
// sends every execve of the sandbox to this process: the first (the
// handler's) gets the process cap (RLIMIT_NPROC, set on the waiting
// child before it runs a single instruction of the handler) and
// continues; later ones continue, or with pol.ExecOnce fail with EPERM.
//
// No network namespace is created: with no network the filter refuses
// every socket() and Landlock every TCP connect and bind, which costs
// nothing per run, while creating and tearing down a network namespace
// does.
//
// Call done after cmd.Wait.
func Start(cmd *exec.Cmd, pol Policy) (done func(), err error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if NeedsLauncher(pol) {
		return nil, errors.New("sandbox: a proxy policy needs the launcher (Wrap)")
	}
	namespaces(cmd)
	spec := specFor(pol)
	spec.notifyExec = true
	sup := &supervisor{execOnce: pol.ExecOnce}
	if pol.MaxProcs > 0 {
		lim := unix.Rlimit{Cur: uint64(pol.MaxProcs), Max: uint64(pol.MaxProcs)}
		sup.onFirstExec = func(pid int) error { return unix.Prlimit(pid, unix.RLIMIT_NPROC, &lim, nil) }
	}
	started := make(chan error, 1)
	release := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := restrict(pol); err != nil {
			started <- err
			return
		}
		if err := applyFilter(spec, sup, false); err != nil {
			started <- err
			return
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		<-release
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return func() { close(release) }, nil
}

// namespaces sets cmd's SysProcAttr: new user and PID namespaces, and
// SIGKILL when the forking thread (and so skillpm) dies. No uid or gid
// map is written: the forking thread is confined by Landlock, which
// denies writing /proc/PID/uid_map, and the handler needs none. Inside,
// its ids show as the overflow id (65534, nobody); files keep the
// caller's ids, and it holds no capabilities after its execve.
func namespaces(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID
	a.Pdeathsig = syscall.SIGKILL
}

// CatchesSIGTERM reports whether process pid has a handler for SIGTERM
// (SigCgt in /proc/PID/status). A directly started handler is PID 1 of
// its namespace, and the kernel does not deliver SIGTERM to a PID 1 that
// does not catch it; the caller then kills it instead.
func CatchesSIGTERM(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "SigCgt:"); ok {
			mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && mask&(1<<(uint(syscall.SIGTERM)-1)) != 0
		}
	}
	return false
}
