//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// NeedsLauncher reports whether pol must run through the launcher
// (Wrap): only a proxy policy does, for the forwarder inside its network
// namespace. Every other policy is started directly (Start).
func NeedsLauncher(pol Policy) bool {
	return pol.Net == NetProxy && pol.ProxySocket != "" && pol.ProxyPort > 0
}

// Running is a handler started by Start.
type Running struct {
	pid1    bool // the handler is PID 1 of its own PID namespace
	tid     int  // without namespaces, the forking thread (see Watch)
	signals chan signalReq
	probes  chan probeReq
	release chan struct{}
	once    sync.Once
}

type signalReq struct {
	sig  syscall.Signal
	done chan struct{}
}

// probeReq asks the forking thread which of pids are in its Landlock
// domain (see probeDomain).
type probeReq struct {
	pids []int
	in   []bool
	done chan struct{}
}

// Start starts cmd (not yet started; Path, Args, Env, Dir and
// SysProcAttr set) confined by pol without a launcher, which is what
// makes a confined run cheap: no second Go program starts. Landlock,
// no_new_privs and the seccomp filter (see specFor) are applied to one
// dedicated thread of this process, which forks the handler (the child
// inherits them) and then serves the Running until Done, so that
// Pdeathsig (tied to the forking thread) holds for the whole run; then
// the thread ends with its goroutine.
//
// Where Landlock scopes signals (ABI 6) and pol lets the handler start
// programs (the default profile), no namespace is created: a new user
// namespace makes os/exec fork the whole Go process instead of vfork,
// which is most of a confined start's cost. Everything the handler
// starts stays in its Landlock domain, whatever setsid or double fork it
// does, and Signal reaches exactly that domain: the forking thread,
// inside the same domain, sends kill(-1), which Landlock lets through
// only to processes of the domain (and the kernel never to this
// process). Sockets are refused by the filter and TCP by Landlock, so no
// network namespace is needed either.
//
// Otherwise (pol.ExecOnce, or an older Landlock) the handler is created
// in new user and PID namespaces, PID 1 of its namespace, and the filter
// sends every execve of the sandbox to this process: the first (the
// handler's) gets the process cap (RLIMIT_NPROC, set on the waiting
// child before it runs a single instruction of the handler) and
// continues; later ones continue, or with pol.ExecOnce fail with EPERM.
//
// Call Done after cmd.Wait.
func Start(cmd *exec.Cmd, pol Policy) (*Running, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	if NeedsLauncher(pol) {
		return nil, errors.New("sandbox: a proxy policy needs the launcher (Wrap)")
	}
	r := &Running{signals: make(chan signalReq), probes: make(chan probeReq), release: make(chan struct{})}
	spec := specFor(pol)
	sup := newSupervisor(pol, pol.ExecOnce)
	if pol.ExecOnce || abiVersion() < 6 {
		r.pid1 = true
		namespaces(cmd)
		spec.notifyExec = true
		if pol.MaxProcs > 0 {
			lim := unix.Rlimit{Cur: uint64(pol.MaxProcs), Max: uint64(pol.MaxProcs)}
			sup.onFirstExec = func(pid int) error { return unix.Prlimit(pid, unix.RLIMIT_NPROC, &lim, nil) }
		}
	} else {
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	// Go's os package checks once, on the first start or look-up of a
	// process, whether pidfds work (pidfd_send_signal among them) and
	// otherwise never uses them again. The forking thread's filter
	// refuses pidfd_send_signal, so that check must not happen there.
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Release()
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if !r.pid1 {
			// This thread joins the handler's Landlock domain, where
			// Landlock lets ptrace and /proc/PID/{environ,mem,fd} reach
			// it, and through it all of skillpm's memory and
			// descriptors. A process that is not dumpable can only be
			// reached so with CAP_SYS_PTRACE, which the handler never
			// holds. The flag is the whole process's and stays set
			// (concurrent runs would race to restore it).
			if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
				started <- fmt.Errorf("not dumpable: %w", err)
				return
			}
			spec.guardTID = unix.Gettid() // nor signal it (see filterSpec)
			r.tid = spec.guardTID
			// No user namespace to leave the capabilities behind in: a
			// handler of a skillpm running as root would hold them all.
			if err := dropCapabilities(); err != nil {
				started <- err
				return
			}
		}
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
		for {
			select {
			case <-r.release:
				leaveRealtime() // a Watcher may have put it there
				return
			case req := <-r.signals:
				signalDomain(req.sig)
				close(req.done)
			case req := <-r.probes:
				probeDomain(req.pids, req.in)
				close(req.done)
			}
		}
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return r, nil
}

// dropCapabilities empties the calling thread's capability sets,
// bounding set included (capabilities are per thread), so that what it
// starts holds none, even after executing as root: execve gives uid 0 the
// bounding set, which is then empty.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capabilities: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 && os.Geteuid() != 0 {
		return nil // nothing to drop, and no root to regain it on execve
	}
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err == unix.EINVAL {
			break // past the kernel's last capability
		} else if err != nil {
			return fmt.Errorf("capabilities: drop %d from the bounding set: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("capabilities: ambient: %w", err)
	}
	data = [2]unix.CapUserData{}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capabilities: %w", err)
	}
	return nil
}

// signalDomain sends sig to every process this thread's Landlock domain
// may signal: those of the sandbox. kill(-1) skips this process. SIGKILL
// is repeated until nothing is left, so that a process forked while the
// first pass ran is caught too.
func signalDomain(sig syscall.Signal) {
	for i := 0; i < 10; i++ {
		if err := syscall.Kill(-1, sig); err != nil || sig != syscall.SIGKILL {
			return // ESRCH or EPERM: nothing (more) in the domain
		}
		runtime.Gosched()
	}
}

// PID1 reports whether the handler is PID 1 of its own PID namespace:
// the kernel then drops a SIGTERM it does not catch.
func (r *Running) PID1() bool { return r.pid1 }

// Signal sends sig to every process of the sandbox that is still
// running. With a PID namespace, it does nothing: the namespace ends
// with its PID 1, and the caller signals that.
func (r *Running) Signal(sig syscall.Signal) {
	if r.pid1 {
		return
	}
	req := signalReq{sig: sig, done: make(chan struct{})}
	select {
	case r.signals <- req:
		<-req.done
	case <-r.release:
	}
}

// Done ends the run's forking thread; call it after cmd.Wait (and any
// last Signal).
func (r *Running) Done() { r.once.Do(func() { close(r.release) }) }

// namespaces sets cmd's SysProcAttr: new user, PID and IPC namespaces
// (System V shared memory, message queues and semaphores of the host are
// out of reach), and SIGKILL when the forking thread (and so skillpm)
// dies. No uid or gid
// map is written: the forking thread is confined by Landlock, which
// denies writing /proc/PID/uid_map, and the handler needs none. Inside,
// its ids show as the overflow id (65534, nobody); files keep the
// caller's ids, and it holds no capabilities after its execve.
func namespaces(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
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
