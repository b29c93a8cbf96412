package git

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestIsSSH(t *testing.T) {
	for url, want := range map[string]bool{
		"ssh://git@example.com/acme/skills.git": true,
		"git+ssh://example.com/acme/skills":     true,
		"git@github.com:acme/skills.git":        true,
		"https://github.com/acme/skills.git":    false,
		"git://127.0.0.1:9418/mono":             false,
		"file:///srv/mono":                      false,
		"/srv/mono":                             false,
	} {
		if got := IsSSH(url); got != want {
			t.Errorf("IsSSH(%q) = %v; want %v", url, got, want)
		}
	}
}

// The SSH bounds go into GIT_SSH_COMMAND only for an SSH remote, and
// only when the user has no ssh command of their own (environment or
// core.sshCommand in the config git reads).
func TestNetEnvSSH(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	global := filepath.Join(t.TempDir(), "gitconfig")
	if err := os.WriteFile(global, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := &Client{CacheDir: dir, Env: []string{"GIT_CONFIG_GLOBAL=" + global}, Connect: 7 * time.Second, Stall: 30 * time.Second}
	want := "GIT_SSH_COMMAND=ssh -o ConnectTimeout=7 -o ServerAliveInterval=10 -o ServerAliveCountMax=3"
	if got := c.netEnv(ctx, dir, "git@example.com:acme/skills.git"); !slices.Equal(got, []string{want}) {
		t.Errorf("netEnv(ssh) = %q; want %q", got, want)
	}
	if got := c.netEnv(ctx, dir, "https://example.com/acme/skills.git"); got != nil {
		t.Errorf("netEnv(https) = %q; want nothing", got)
	}
	own := &Client{CacheDir: dir, Env: []string{"GIT_CONFIG_GLOBAL=" + global, "GIT_SSH_COMMAND=ssh -i key"}}
	if got := own.netEnv(ctx, dir, "git@example.com:acme/skills.git"); got != nil {
		t.Errorf("netEnv with the user's GIT_SSH_COMMAND = %q; want nothing", got)
	}
	if err := os.WriteFile(global, []byte("[core]\n\tsshCommand = ssh -F /dev/null\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &Client{CacheDir: dir, Env: []string{"GIT_CONFIG_GLOBAL=" + global}}
	if got := cfg.netEnv(ctx, dir, "ssh://example.com/acme/skills"); got != nil {
		t.Errorf("netEnv with core.sshCommand set = %q; want nothing", got)
	}
}

// A git:// server that accepts and never answers: the operation's
// deadline kills git (git has no connect or read timeout for git://).
func TestOperationDeadline(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, silent
		}
	}()
	c := newClient(t)
	c.Timeout = time.Second
	_, err = c.Refs(context.Background(), "git://"+l.Addr().String()+"/mono")
	if !errors.Is(err, ErrFailed) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Refs(a silent server) = %v; want ErrFailed, timed out", err)
	}
}
