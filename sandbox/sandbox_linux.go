//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// LauncherArg is the hidden first argument that makes skillpm run as the
// sandbox launcher (see IsLauncher).
const LauncherArg = "__sandbox-exec"

// policyEnv carries the JSON policy from the host to the launcher, which
// removes it before starting the handler.
const policyEnv = "SKILLPM_SANDBOX_POLICY"

var availability = sync.OnceValue(func() error {
	if abiVersion() < 4 {
		return fmt.Errorf("%w: Landlock ABI 4 or later is needed (this kernel: %d)", ErrUnsupported, abiVersion())
	}
	b, err := os.ReadFile("/proc/sys/user/max_user_namespaces")
	if err == nil {
		if n, _ := strconv.Atoi(strings.TrimSpace(string(b))); n == 0 {
			return fmt.Errorf("%w: user namespaces are disabled (user.max_user_namespaces = 0)", ErrUnsupported)
		}
	}
	return nil
})

// Available reports whether this platform can enforce policies: nil, or an
// error wrapping ErrUnsupported saying what is missing.
func Available() error { return availability() }

// Wrap rewrites cmd, not yet started, to run under pol: it starts
// launcher (normally os.Executable()) with LauncherArg in new user and PID
// namespaces, and a new network namespace unless pol allows the network or
// the proxy. The launcher applies pol and runs the original command. Call
// Wrap after setting cmd.Path, cmd.Args, cmd.Env and cmd.SysProcAttr.
func Wrap(cmd *exec.Cmd, pol Policy, launcher string) error {
	if err := Available(); err != nil {
		return err
	}
	b, err := json.Marshal(pol)
	if err != nil {
		return fmt.Errorf("sandbox: encode policy: %w", err)
	}
	args := append([]string{launcher, LauncherArg, cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = launcher, args
	// Go's Getenv takes the first of duplicate names: a variable of that
	// name already in the environment must not stand for the policy.
	env := slices.DeleteFunc(slices.Clone(cmd.Env), func(kv string) bool { return strings.HasPrefix(kv, policyEnv+"=") })
	cmd.Env = append(env, policyEnv+"="+string(b))
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC // IPC: see namespaces
	switch {
	case pol.Net == NetProxy && pol.ProxySocket != "" && pol.ProxyPort > 0:
		// Own network namespace whose only way out is the launcher's
		// forwarder to the proxy; the launcher needs CAP_NET_ADMIN in it
		// to bring the loopback up, and drops it before the handler.
		a.Cloneflags |= syscall.CLONE_NEWNET
		a.AmbientCaps = append(a.AmbientCaps, unix.CAP_NET_ADMIN)
	case pol.Net != NetAll:
		// No network, or a proxy policy without a proxy: fail closed.
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	// Inside, the handler is not uid 0, so it holds no capabilities even
	// in its own user namespace.
	inside := os.Getuid()
	if inside == 0 {
		inside = 1000
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: inside, HostID: os.Getuid(), Size: 1}}
	ginside := os.Getgid()
	if ginside == 0 {
		ginside = 1000
	}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: ginside, HostID: os.Getgid(), Size: 1}}
	a.GidMappingsEnableSetgroups = false
	a.Pdeathsig = syscall.SIGKILL // the launcher, and so the namespace, dies with us
	return nil
}

// IsLauncher reports whether args (os.Args) ask for the sandbox launcher.
func IsLauncher(args []string) bool { return len(args) > 1 && args[1] == LauncherArg }

// Launch is the sandbox launcher; args are os.Args. It reads the policy
// from the environment, applies it to itself, starts the program named by
// args[2] with args[3:], forwards SIGTERM, SIGINT and SIGHUP to every
// process of the namespace, reaps them, and returns the program's exit code
// (128+n if signal n killed it). When it returns, the caller exits; being
// PID 1 of its namespace, that kills whatever the program left behind. The
// error, if any, is for the caller to print on stderr; the code is then 126
// (policy could not be applied) or 127 (program could not start).
func Launch(args []string) (int, error) {
	if len(args) < 3 {
		return 126, errors.New("skillpm sandbox: no program to run")
	}
	var pol Policy
	if err := json.Unmarshal([]byte(os.Getenv(policyEnv)), &pol); err != nil {
		return 126, fmt.Errorf("skillpm sandbox: bad policy: %w", err)
	}
	os.Unsetenv(policyEnv)

	runtime.LockOSThread() // Landlock applies to this thread; the fork below happens on it
	if pol.MaxProcs > 0 {
		lim := unix.Rlimit{Cur: uint64(pol.MaxProcs), Max: uint64(pol.MaxProcs)}
		if err := unix.Setrlimit(unix.RLIMIT_NPROC, &lim); err != nil {
			return 126, fmt.Errorf("skillpm sandbox: process limit: %w", err)
		}
	}
	if pol.Net == NetProxy && pol.ProxySocket != "" && pol.ProxyPort > 0 {
		if err := forwardProxy(pol.ProxyPort, pol.ProxySocket); err != nil {
			return 126, fmt.Errorf("skillpm sandbox: proxy: %w", err)
		}
	}
	// The handler gets no capabilities: the ambient set (CAP_NET_ADMIN
	// for the loopback) is cleared on this thread, which starts it.
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return 126, fmt.Errorf("skillpm sandbox: drop capabilities: %w", err)
	}
	if err := restrict(pol); err != nil {
		return 126, fmt.Errorf("skillpm sandbox: %w", err)
	}
	spec := specFor(pol)
	spec.notifyExec = pol.ExecOnce
	if err := applyFilter(spec, newSupervisor(pol, true), true); err != nil {
		return 126, fmt.Errorf("skillpm sandbox: %w", err)
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// A nested user namespace, for no privilege: without one, os/exec
	// starts the child with vfork, which holds this thread in a raw
	// system call until the child's execve returns; that execve waits for
	// the exec supervisor, and a garbage collection starting meanwhile
	// would wait for this thread forever, stopping the supervisor too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER}
	if err := cmd.Start(); err != nil {
		if errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM) {
			return 126, fmt.Errorf("skillpm sandbox: exec %s: permission denied", args[2])
		}
		return 127, fmt.Errorf("skillpm sandbox: %w", err)
	}
	go func() {
		for s := range sigs {
			syscall.Kill(-1, s.(syscall.Signal)) // every process in the namespace but us
		}
	}()
	main := cmd.Process.Pid
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 127, fmt.Errorf("skillpm sandbox: wait: %w", err)
		}
		if pid != main {
			continue // an orphan we reaped as init
		}
		if ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ws.ExitStatus(), nil
	}
}
