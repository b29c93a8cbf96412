package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// registryKind is one registry implementation the scripts run against.
type registryKind struct {
	name   string // subtest name and $REGISTRY_KIND
	envVar string // environment variable naming the binary
	bin    string // default binary path
	get    string // how to provide the binary, for the skip/fail message
}

// toolsDir is where scripts/test keeps the pinned tools it builds.
func toolsDir() string {
	tools := os.Getenv("SKILLPM_TOOLS")
	if tools == "" {
		if home, err := os.UserHomeDir(); err == nil {
			tools = filepath.Join(home, ".cache", "skillpm-tools")
		}
	}
	return tools
}

// cosignBin returns the cosign binary scripts run as $COSIGN: the
// pinned build scripts/test makes ($SKILLPM_COSIGN_BIN), also while it is
// still being built (the [cosign] condition waits for it), or "" when
// there is none.
func cosignBin() string {
	bin := os.Getenv("SKILLPM_COSIGN_BIN")
	if bin == "" {
		bin = filepath.Join(toolsDir(), "bin", "cosign")
	}
	if peerPending("cosign") || executable(bin) {
		return bin
	}
	return ""
}

// kinds returns the registry kinds the scripts run against, in the order
// $SKILLPM_E2E_KINDS lists them (comma-separated names, e.g.
// "docker-registry,distribution"), or every kind when it is empty. The
// first runs the scripts that use no registry.
func kinds() ([]registryKind, error) {
	all := allKinds()
	only := os.Getenv("SKILLPM_E2E_KINDS")
	if only == "" {
		return all, nil
	}
	var out []registryKind
	for _, name := range strings.Split(only, ",") {
		i := slices.IndexFunc(all, func(k registryKind) bool { return k.name == name })
		if i < 0 {
			return nil, fmt.Errorf("SKILLPM_E2E_KINDS=%s: unknown registry kind %q", only, name)
		}
		if !slices.Contains(out, all[i]) {
			out = append(out, all[i])
		}
	}
	return out, nil
}

// allKinds lists every registry kind the suite knows.
func allKinds() []registryKind {
	tools := toolsDir()
	return []registryKind{
		{
			name:   "distribution",
			envVar: "SKILLPM_REGISTRY_BIN",
			bin:    filepath.Join(tools, "bin", "registry"),
			get:    "run scripts/test once (it builds scripts/tools/registry), or: scripts/test tools",
		},
		{
			name:   "docker-registry",
			envVar: "SKILLPM_DOCKER_REGISTRY_BIN",
			bin:    "/usr/bin/docker-registry",
			get:    "run scripts/test once as root, or: apt-get install docker-registry",
		},
	}
}

// binary returns the kind's registry binary. When it is missing the test
// fails under CI (no silent skips there) and is skipped otherwise.
func (k registryKind) binary(t *testing.T) string {
	t.Helper()
	bin := k.bin
	if v := os.Getenv(k.envVar); v != "" {
		bin = v
	}
	if fi, err := os.Stat(bin); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
		return bin
	}
	msg := fmt.Sprintf("%s registry binary %s not found (set %s, or %s)", k.name, bin, k.envVar, k.get)
	if inCI() {
		t.Fatalf("%s; CI is set, so this is a failure, not a skip", msg)
	}
	t.Skipf("SKIPPING every script that uses a registry against %s: %s", k.name, msg)
	return ""
}

func inCI() bool {
	v := os.Getenv("CI")
	return v != "" && v != "0" && v != "false"
}

// serverOptions configures one registry instance.
type serverOptions struct {
	user, pass string // when set, htpasswd basic auth is required
}

// server is one running registry process.
type server struct {
	addr    string // 127.0.0.1:PORT
	dir     string // config, storage and log live here
	logPath string
	opts    serverOptions
	cmd     *exec.Cmd
	exited  chan struct{} // closed once the process has exited
	waitErr error         // valid after exited is closed
}

// startServer starts bin with a generated config in a fresh folder under
// dir and waits until it answers GET /v2/. A port taken between choosing
// and binding it is retried with another one.
func startServer(ctx context.Context, bin, dir string, opts serverOptions) (*server, error) {
	var lastErr error
	for attempt := range 5 {
		d := filepath.Join(dir, fmt.Sprintf("try%d", attempt))
		s, err := startServerOnce(ctx, bin, d, opts)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !errors.Is(err, errPortTaken) {
			break
		}
	}
	return nil, lastErr
}

var errPortTaken = errors.New("port already in use")

func startServerOnce(ctx context.Context, bin, dir string, opts serverOptions) (*server, error) {
	if err := os.MkdirAll(filepath.Join(dir, "storage"), 0o755); err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{addr: addr, dir: dir, logPath: filepath.Join(dir, "registry.log"), opts: opts, exited: make(chan struct{})}
	config := filepath.Join(dir, "config.yml")
	if err := os.WriteFile(config, []byte(s.config()), 0o644); err != nil {
		return nil, err
	}
	if opts.user != "" {
		hash, err := bcrypt.GenerateFromPassword([]byte(opts.pass), bcrypt.MinCost)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "htpasswd"), []byte(opts.user+":"+string(hash)+"\n"), 0o644); err != nil {
			return nil, err
		}
	}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own copy
	s.cmd = exec.Command(bin, "serve", config)
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	s.cmd.Env = append(os.Environ(),
		// distribution v3 exports traces by default; nothing listens here.
		"OTEL_TRACES_EXPORTER=none",
		"OTEL_METRICS_EXPORTER=none",
		"OTEL_LOGS_EXPORTER=none",
		"OTEL_SDK_DISABLED=true",
	)
	setDeathSignal(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		s.stop()
		if strings.Contains(s.logTail(20), "address already in use") {
			return nil, fmt.Errorf("%s: %w", addr, errPortTaken)
		}
		return nil, fmt.Errorf("registry %s did not start: %w\n%s", bin, err, s.logTail(40))
	}
	return s, nil
}

// config returns the registry configuration: filesystem storage, deletes
// enabled, plain HTTP on loopback, warnings only (plus the access log, which
// is what one wants to read when a script fails).
func (s *server) config() string {
	var b strings.Builder
	fmt.Fprintf(&b, `version: 0.1
log:
  level: warn
  formatter: text
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: %s
  secret: skillpm-e2e-not-a-secret
  headers:
    X-Content-Type-Options: [nosniff]
`, filepath.Join(s.dir, "storage"), s.addr)
	if s.opts.user != "" {
		fmt.Fprintf(&b, `auth:
  htpasswd:
    realm: skillpm-e2e
    path: %s
`, filepath.Join(s.dir, "htpasswd"))
	}
	return b.String()
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// waitReady polls GET /v2/ until it answers 200.
func (s *server) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	var last string
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+s.addr+"/v2/", nil)
		if err != nil {
			return err
		}
		if s.opts.user != "" {
			req.SetBasicAuth(s.opts.user, s.opts.pass)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = "GET /v2/: " + resp.Status
		} else {
			last = err.Error()
		}
		select {
		case <-s.exited:
			return fmt.Errorf("the registry exited (%v)", s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("no 200 from http://%s/v2/ within %s (last: %s)", s.addr, timeout, last)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// stop terminates the registry: SIGTERM, then SIGKILL after 5 seconds.
func (s *server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.exited:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// logTail returns the last n lines of the registry's log.
func (s *server) logTail(n int) string {
	data, err := os.ReadFile(s.logPath)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", s.logPath, err)
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = append([][]byte{[]byte(fmt.Sprintf("... (%d earlier lines in %s)", len(lines)-n, s.logPath))}, lines[len(lines)-n:]...)
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// startTestServer starts a registry for the life of tb: it is stopped in
// tb's cleanup, and if tb failed its files are kept and its log is shown.
func startTestServer(tb testing.TB, name, bin string, opts serverOptions) (*server, error) {
	dir, err := os.MkdirTemp("", "skillpm-e2e-"+name+"-")
	if err != nil {
		return nil, err
	}
	s, err := startServer(context.Background(), bin, dir, opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start registry %s: %w", name, err)
	}
	tb.Cleanup(func() {
		s.stop()
		if tb.Failed() {
			tb.Logf("registry %s (%s), files kept in %s; log:\n%s", name, s.addr, dir, s.logTail(200))
			return
		}
		os.RemoveAll(dir)
	})
	return s, nil
}
