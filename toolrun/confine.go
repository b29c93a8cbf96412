package toolrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/skillpm/skillpm/sandbox"
)

// Sandbox configures how runs are confined (see package sandbox). Give the
// same *Sandbox to every run of a command so that the "cannot enforce"
// warning comes once.
type Sandbox struct {
	// Mode is off, default or strict. The zero value is Default.
	Mode sandbox.Mode
	// Launcher is the program started as the sandbox launcher; it must
	// call sandbox.Launch when its first argument is sandbox.LauncherArg.
	// Default: os.Executable().
	Launcher string
	// Warn, if set, is told once why runs are not confined (platform
	// cannot enforce) in default mode.
	Warn func(msg string)
	// Proxy starts the filtering proxy (package sandbox/netproxy) for a
	// tool that declares network.outbound hosts, serving on l until its
	// Close: netproxy.Start in this process, or ProxyProcess in a child.
	// Without it such a tool does not run.
	Proxy func(outbound []string, l net.Listener) (Proxy, error)

	viaLauncher bool // benchmarks: start through the launcher, as before direct starts

	once  sync.Once // the "cannot enforce" warning
	sweep sync.Once // removing the run folders of killed skillpms
}

// mode returns the effective mode; a nil *Sandbox is Off.
func (s *Sandbox) mode() sandbox.Mode {
	if s == nil {
		return sandbox.Off
	}
	if s.Mode == "" {
		return sandbox.Default
	}
	return s.Mode
}

// confine prepares p to run under the policy for perms, given the skill
// folder. It returns a cleanup func (never nil) that removes the private
// temp folder.
func (o Options) confine(p *proc, perms sandbox.Permissions, skillFolder string) (func(), *Error) {
	noop := func() {}
	s := o.Sandbox
	mode := s.mode()
	if mode == sandbox.Off {
		return noop, nil
	}
	if err := sandbox.Available(); err != nil {
		if mode == sandbox.Strict {
			return noop, &Error{Kind: PermissionDenied, Msg: "sandbox is strict but this platform cannot enforce tool permissions; run with --sandbox default (or off) to run unconfined", Err: err}
		}
		s.once.Do(func() {
			if s.Warn != nil {
				s.Warn(err.Error() + "; tools run unconfined")
			}
		})
		return noop, nil
	}
	launcher := s.Launcher
	if launcher == "" {
		exe, err := os.Executable()
		if err != nil {
			return noop, &Error{Kind: ExecutionFailed, Msg: "sandbox launcher", Err: err}
		}
		launcher = exe
	}
	program, runtime, err := sandbox.ProgramPaths(p.path)
	if errors.Is(err, sandbox.ErrScript) && p.runtime != "" {
		// A version-manager shim: confine the interpreter it runs.
		if real, qerr := realInterpreter(p.path, p.runtime, p.env); qerr == nil {
			p.path = real
			program, runtime, err = sandbox.ProgramPaths(real)
		}
	}
	if err != nil && !errors.Is(err, sandbox.ErrScript) {
		return noop, &Error{Kind: ExecutionFailed, Msg: "sandbox", Err: err}
	}
	if errors.Is(err, sandbox.ErrScript) {
		// A "#!" script run directly: its interpreter must be runnable.
		if interp := shebang(program); interp != "" {
			runtime = append(runtime, interp)
			if _, rt, err := sandbox.ProgramPaths(interp); err == nil {
				runtime = append(runtime, rt...)
			}
		}
	}
	if d, err := skillDir(skillFolder); err == nil {
		skillFolder = d
	}
	s.sweep.Do(func() {
		if root, err := userTempRoot(); err == nil {
			sweepRunFolders(root, time.Now())
		}
	})
	run, err := newRunFolder()
	if err != nil {
		return noop, &Error{Kind: ExecutionFailed, Msg: "sandbox temp folder", Err: err}
	}
	tmp, cleanup := run.tmp(), run.remove
	pol, err := sandbox.Build(perms, sandbox.Target{WorkDir: p.dir, SkillDir: skillFolder, TempDir: tmp, Program: program, Runtime: runtime})
	if err != nil {
		cleanup()
		return noop, &Error{Kind: PermissionDenied, Msg: "sandbox", Err: err}
	}
	p.env = setEnv(p.env, "TMPDIR", tmp)
	// git dies when it cannot read its system config (/etc/gitconfig),
	// which the sandbox does not grant (a CI image may keep a token in
	// it): a handler's git goes without, as it would have to anyway.
	p.env = setEnv(p.env, "GIT_CONFIG_NOSYSTEM", "1")
	if pol.Net == sandbox.NetProxy {
		stop, err := p.startProxy(&pol, perms.Outbound, s, run.dir)
		if err != nil {
			cleanup()
			return noop, &Error{Kind: ExecutionFailed, Msg: "sandbox proxy", Err: err}
		}
		cleanup = func() { stop(); run.remove() }
	}
	p.policy, p.launcher, p.viaLauncher = &pol, launcher, s.viaLauncher
	return cleanup, nil
}

// proxyEnv are the variables that point HTTP clients at the proxy.
var proxyEnv = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"}

// startProxy serves the filtering proxy for outbound on a unix socket in
// the run's private folder dir (outside what the sandbox grants), points
// pol (and so the launcher's forwarder) at it, and sets the child's proxy
// variables. The returned func stops it.
func (p *proc) startProxy(pol *sandbox.Policy, outbound []string, s *Sandbox, dir string) (func(), error) {
	if s.Proxy == nil {
		return nil, errors.New("no filtering proxy to start for network.outbound")
	}
	sock := filepath.Join(dir, "proxy.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		return nil, err
	}
	px, err := s.Proxy(outbound, l)
	if err != nil {
		l.Close()
		return nil, err
	}
	pol.ProxySocket, pol.ProxyPort = sock, sandbox.InProxyPort
	url := fmt.Sprintf("http://127.0.0.1:%d", sandbox.InProxyPort)
	for _, k := range proxyEnv {
		p.env = setEnv(p.env, k, url)
	}
	p.env = setEnv(p.env, "NO_PROXY", "")
	p.env = setEnv(p.env, "no_proxy", "")
	p.env = setEnv(p.env, "NODE_USE_ENV_PROXY", "1") // Node 24+ honours HTTP(S)_PROXY with it
	p.proxy = px
	return func() { px.Close() }, nil
}

// setEnv returns env with k set to v.
func setEnv(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); name != k {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}

var interpreters sync.Map // shim path -> real interpreter

// realInterpreter asks a python or node shim for the binary it runs.
func realInterpreter(shim, runtime string, env []string) (string, error) {
	if v, ok := interpreters.Load(shim); ok {
		return v.(string), nil
	}
	var args []string
	switch runtime {
	case RuntimePython:
		args = []string{"-c", "import sys; print(sys.executable)"}
	case RuntimeNode:
		args = []string{"-e", "console.log(process.execPath)"}
	default:
		return "", fmt.Errorf("no way to ask %s for its interpreter", runtime)
	}
	// A version manager starts slowly on a loaded machine (pyenv took 11 s
	// under CI's load); a shim silent for a minute is broken.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, shim, args...)
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	real := strings.TrimSpace(string(out))
	if !filepath.IsAbs(real) {
		return "", fmt.Errorf("%s reports interpreter %q", shim, real)
	}
	interpreters.Store(shim, real)
	return real, nil
}

// shebang returns the interpreter a "#!" script names, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, 256)
	n, _ := f.Read(b)
	line, _, _ := strings.Cut(string(b[:n]), "\n")
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return ""
	}
	return fields[0]
}

// deniedMarkers are what runtimes print when the kernel says EACCES or
// EPERM; the sandbox launcher says "permission denied" too.
var deniedMarkers = []string{"permission denied", "eacces", "operation not permitted", "eperm", "permissionerror"}

// deniedLine returns the first line of text that reports a denied
// operation, or "".
func deniedLine(texts ...string) string {
	for _, text := range texts {
		for _, l := range strings.Split(text, "\n") {
			low := strings.ToLower(l)
			for _, m := range deniedMarkers {
				if strings.Contains(low, m) {
					l = strings.TrimSpace(l)
					if len(l) > 300 {
						l = strings.ToValidUTF8(l[:300], "") + "..."
					}
					return l
				}
			}
		}
	}
	return ""
}

// sandboxDenied turns a failed confined run whose output reports EACCES or
// EPERM, or for which the proxy refused hosts, into a PermissionDenied
// error naming what was denied.
func sandboxDenied(e *Error, p proc, oc outcome) *Error {
	if p.policy == nil || e == nil || e.Kind != ExecutionFailed || oc.tasks > 0 {
		return e
	}
	if p.proxy != nil {
		if hosts := p.proxy.Denied(); len(hosts) > 0 {
			return &Error{Kind: PermissionDenied, Msg: "denied by the sandbox: network connection to " + strings.Join(hosts, ", ")}
		}
	}
	line := deniedLine(e.Msg, oc.stderr)
	if line == "" {
		return e
	}
	return &Error{Kind: PermissionDenied, Msg: "denied by the sandbox: " + line}
}
