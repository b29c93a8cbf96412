// Package sandbox turns what a skill declares (Universal Agent Skill §8
// permissions) into an enforced policy for the process that runs one of its
// tools, and applies it.
//
// The policy type and [Build] are platform-neutral. On Linux, [Start]
// starts a handler from a dedicated thread that holds the policy's
// Landlock filesystem, TCP and scope rules and a seccomp filter (no unix
// sockets, no sockets at all without network, exec control), which the
// handler inherits: with subprocesses allowed and Landlock ABI 6, in no
// namespace at all (the run is held together by its Landlock domain, see
// [Running.Signal]); otherwise in new user and PID namespaces. A policy
// that goes through the filtering [Proxy] needs [Wrap] instead: it
// rewrites an *exec.Cmd so that it starts skillpm itself as a small
// launcher (the hidden "__sandbox-exec" entry point, see [IsLauncher] and
// [Launch]) in new user, PID and network namespaces, which runs the
// forwarder to the proxy and stays PID 1. Other platforms report
// [ErrUnsupported].
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Mode is the user's choice of how much to enforce.
type Mode string

// The modes, from loosest to strictest.
const (
	// Off runs handlers unconfined.
	Off Mode = "off"
	// Default enforces what skills declare, and the default profile for
	// skills that declare nothing; where the platform cannot enforce it
	// warns once and runs unconfined.
	Default Mode = "default"
	// Strict enforces like Default, and refuses to run where the platform
	// cannot enforce.
	Strict Mode = "strict"
)

// ErrUnsupported is returned where the platform cannot enforce a policy.
var ErrUnsupported = errors.New("sandbox: this platform cannot enforce tool permissions")

// ParseMode reads "off", "default" or "strict"; "" is Default.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Default, nil
	case Off, Default, Strict:
		return m, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want off, default or strict", s)
}

func (m Mode) rank() int {
	switch m {
	case Off:
		return 0
	case Strict:
		return 2
	}
	return 1
}

// Tighter returns the stricter of a and b: a project file may tighten the
// user's choice, never relax it.
func Tighter(a, b Mode) Mode {
	if b.rank() > a.rank() {
		return b
	}
	return a
}

// Access is a set of rights on a path.
type Access uint8

// Rights a Rule grants.
const (
	Read  Access = 1 << iota // read files, list directories
	Write                    // create, write, truncate, rename, remove
	Exec                     // execute files
)

// Rule grants Access on Path and, for a directory, everything beneath it.
type Rule struct {
	Path   string `json:"path"`
	Access Access `json:"access"`
	// Exact says Path was resolved when the policy was built and must
	// contain no symbolic link when the rule is applied: a path in a
	// folder a handler may write to (the work folder, a skill inside it)
	// could otherwise be swapped for a link to anywhere in between.
	Exact bool `json:"exact,omitempty"`
}

// InProxyPort is the port the launcher listens on, on 127.0.0.1 inside
// the sandbox's own network namespace, for the filtering proxy (package
// netproxy). The namespace is private to one run, so a fixed port is
// always free.
const InProxyPort = 3128

// Net is what network access a policy allows.
type Net string

// Network modes.
const (
	NetNone  Net = "none"  // no connections at all (no socket(), no TCP connect)
	NetProxy Net = "proxy" // TCP only to the filtering proxy on loopback
	NetAll   Net = "all"   // unrestricted
)

// Policy is what the launcher enforces. Everything not granted by Rules is
// denied: reading, writing and executing.
type Policy struct {
	Rules     []Rule `json:"rules"`
	Net       Net    `json:"net"`
	ProxyPort int    `json:"proxy_port,omitempty"` // with NetProxy: the port inside the sandbox (InProxyPort)
	// ProxySocket is the unix socket the filtering proxy serves on,
	// outside the sandbox; the launcher forwards 127.0.0.1:ProxyPort to
	// it. With NetProxy and no socket the sandbox has no network.
	ProxySocket string `json:"proxy_socket,omitempty"`
	// ExecOnce lets the sandbox execute one program, the handler: every
	// later execve fails (allow_subprocess: false; seccomp, see
	// execOnce). It closes the hole Landlock leaves: running another
	// program through the handler's ELF loader.
	ExecOnce bool `json:"exec_once,omitempty"`
	// MaxProcs caps the tasks (processes and threads) the sandbox holds
	// at once, against fork bombs; 0 leaves them alone. A run that goes
	// over it is killed whole (see Watch); in a user namespace of a user
	// other than root, RLIMIT_NPROC also makes the fork that would go
	// over it fail.
	MaxProcs int `json:"max_procs,omitempty"`
}

// DefaultMaxProcs is the task cap every policy from Build carries: well
// above what a browser driven by a tool runs, and a small part of the
// smallest process table (pid_max is at least 32,768).
const DefaultMaxProcs = 1024

// Permissions is what a skill declares (Universal §8). Declared is false
// for skills without a permissions block; Build then uses the default
// profile.
type Permissions struct {
	Declared        bool
	Read, Write     []string // globs relative to the work folder
	Outbound        []string // hosts; empty means no network
	AllowSubprocess bool
}

// Target is what one run needs besides the declared permissions.
type Target struct {
	WorkDir  string // absolute work folder; globs are relative to it
	SkillDir string // absolute skill folder, read-only
	TempDir  string // private temp folder, read-write
	// Program is the file the launcher executes: the interpreter, or the
	// script itself when it runs directly. It is always executable.
	Program string
	// Runtime are extra read-only (and executable) paths the program needs:
	// the interpreter's installation prefix, its ELF loader.
	Runtime []string
}

// systemRead are the read-only system paths every policy grants; missing
// ones are skipped. /etc is not granted whole.
var systemRead = []string{
	"/usr", "/lib", "/lib64", "/lib32", "/bin", "/sbin",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
	"/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
	"/etc/hosts", "/etc/resolv.conf", "/etc/ssl", "/etc/ca-certificates",
	"/etc/pki", "/etc/mime.types",
	"/proc", "/sys/fs/cgroup", "/sys/devices/system/cpu",
	"/dev/urandom", "/dev/random", "/dev/zero",
}

// systemExec are the system folders whose programs a handler may run when
// it may start subprocesses.
var systemExec = []string{"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32"}

// existingSystem is which of the system paths exist, looked up once per
// process: they do not come and go between runs.
var existingSystem = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, p := range slices.Concat(systemRead, systemExec, []string{"/dev/null"}) {
		if _, err := os.Lstat(p); err == nil {
			m[p] = true
		}
	}
	return m
})

// Build turns declared permissions into a policy for t.
//
// Filesystem: a glob grants its longest literal folder prefix (output/**
// grants output/, **/*.pdf grants the whole work folder); a glob without
// wildcards grants that one file or folder. Write implies read. A write
// prefix that does not exist yet is created, inside the work folder only.
// Skills that declare nothing get the default profile: the work folder
// read-write. Either way the skill folder is read-only, t.TempDir is
// read-write, system libraries are read-only, and $HOME is not granted.
//
// Network: no hosts means none; hosts mean only through the proxy on
// ProxyPort (set by the caller), "*" means unrestricted.
//
// Processes: without allow_subprocess only t.Program (and its runtime
// paths) may be executed; with it (and in the default profile) also the
// system folders and the skill folder.
func Build(p Permissions, t Target) (Policy, error) {
	pol := Policy{Net: NetNone, MaxProcs: DefaultMaxProcs}
	sys := existingSystem()
	addSystem := func(paths []string, a Access) {
		for _, p := range paths {
			if sys[p] {
				pol.Rules = append(pol.Rules, Rule{Path: p, Access: a})
			}
		}
	}
	add := func(path string, a Access) {
		if path == "" {
			return
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return // Landlock needs the path to exist; nothing to grant
		}
		pol.Rules = append(pol.Rules, Rule{Path: real, Access: a, Exact: true})
	}
	addSystem(systemRead, Read)
	addSystem([]string{"/dev/null"}, Read|Write)
	add(t.TempDir, Read|Write)
	subprocess := !p.Declared || p.AllowSubprocess
	pol.ExecOnce = !subprocess
	skillAccess := Read
	if subprocess {
		skillAccess |= Exec
		addSystem(systemExec, Read|Exec)
	}
	add(t.SkillDir, skillAccess)
	add(t.Program, Read|Exec)
	for _, r := range t.Runtime {
		add(r, Read|Exec)
	}

	if !p.Declared {
		add(t.WorkDir, Read|Write)
		return pol, nil
	}
	for _, g := range p.Read {
		dir, err := globRoot(t.WorkDir, g, false)
		if err != nil {
			return pol, err
		}
		add(dir, Read)
	}
	for _, g := range p.Write {
		dir, err := globRoot(t.WorkDir, g, true)
		if err != nil {
			return pol, err
		}
		add(dir, Read|Write)
	}
	switch {
	case slices.Contains(p.Outbound, "*"):
		pol.Net = NetAll
	case len(p.Outbound) > 0:
		pol.Net = NetProxy
	}
	return pol, nil
}

// globRoot returns the path under workDir that the glob's longest literal
// prefix names. For a write glob whose prefix folder does not exist, the
// folder is created.
func globRoot(workDir, glob string, write bool) (string, error) {
	g := strings.ReplaceAll(glob, `\`, "/")
	if g == "" || path.IsAbs(g) || strings.HasPrefix(g, "!") {
		return "", fmt.Errorf("permission glob %q: want a path relative to the work folder", glob)
	}
	segs := strings.Split(path.Clean(g), "/")
	literal := len(segs)
	for i, s := range segs {
		if s == ".." {
			return "", fmt.Errorf("permission glob %q: \"..\" leaves the work folder", glob)
		}
		if strings.ContainsAny(s, "*?[{") && literal == len(segs) {
			literal = i
		}
	}
	rel := strings.Join(segs[:literal], "/")
	if rel == "." {
		rel = ""
	}
	p := filepath.Join(workDir, filepath.FromSlash(rel))
	// The granted path must stay inside the work folder even through
	// symlinks, and so must a folder created for a write glob: its
	// existing part is checked before anything is created.
	outside := func() error {
		if !insideReal(workDir, p) {
			return fmt.Errorf("permission glob %q: %s resolves outside the work folder", glob, p)
		}
		return nil
	}
	if err := outside(); err != nil {
		return "", err
	}
	if write && literal < len(segs) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return "", fmt.Errorf("permission glob %q: create %s: %w", glob, p, err)
		}
		if err := outside(); err != nil {
			return "", err
		}
	}
	return p, nil
}

// insideReal reports whether p, resolved as far as it exists, is dir or
// beneath it (resolved too).
func insideReal(dir, p string) bool {
	wd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return true // no work folder: nothing to escape from, nothing granted
	}
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			real = filepath.Join(real, rest)
			return real == wd || strings.HasPrefix(real, wd+string(filepath.Separator))
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// Summary says what a sandbox enforces for one tool, for `skillpm tools
// --json`.
type Summary struct {
	Mode       Mode   `json:"mode"`
	Enforced   bool   `json:"enforced"`
	Profile    string `json:"profile"` // "declared" or "default"
	Filesystem string `json:"filesystem"`
	Network    string `json:"network"`
	Processes  string `json:"processes"`
	Reason     string `json:"reason,omitempty"` // why not enforced
}

// Describe summarises what mode enforces for permissions p on this
// platform.
func Describe(mode Mode, p Permissions) Summary {
	s := Summary{Mode: mode, Profile: "default"}
	if p.Declared {
		s.Profile = "declared"
	}
	if mode == Off {
		s.Reason = "sandbox off"
		s.Filesystem, s.Network, s.Processes = "unrestricted", "unrestricted", "unrestricted"
		return s
	}
	if err := Available(); err != nil {
		s.Reason = err.Error()
		s.Filesystem, s.Network, s.Processes = "unrestricted", "unrestricted", "unrestricted"
		return s
	}
	s.Enforced = true
	s.Filesystem = "work folder read-write, skill folder read-only, private temp, system read-only"
	s.Network = "none"
	s.Processes = "allowed (system programs)"
	if p.Declared {
		s.Filesystem = fmt.Sprintf("read %s, write %s (work folder), skill folder read-only, private temp, system read-only",
			list(p.Read), list(p.Write))
		switch {
		case slices.Contains(p.Outbound, "*"):
			s.Network = "unrestricted, but no unix sockets"
		case len(p.Outbound) > 0:
			s.Network = "only " + strings.Join(p.Outbound, ", ") + " through the filtering proxy"
		}
		if !p.AllowSubprocess {
			s.Processes = "none (only the interpreter)"
		}
	}
	return s
}

func list(globs []string) string {
	if len(globs) == 0 {
		return "nothing"
	}
	return "[" + strings.Join(globs, ", ") + "]"
}
