package git

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// How long git may take. Every operation (listing refs, a Fetch, an
// Export, a branch check) runs under one deadline, Client.Timeout, which
// also kills git on any transport that has no bound of its own (git://,
// an HTTP connect). Over HTTP(S), a transfer slower than 1 KiB/s for
// Client.Stall fails (http.lowSpeedLimit/lowSpeedTime). Over SSH, the
// connection's set-up is bounded by Client.Connect (ConnectTimeout) and a
// server that stops answering by Client.Stall (ServerAliveInterval ×
// ServerAliveCountMax), through GIT_SSH_COMMAND, unless the user chose
// their own ssh command, which is then left alone.

// DefaultConnect bounds an SSH connection's set-up when Client.Connect
// is zero.
const DefaultConnect = 10 * time.Second

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// opContext is ctx bounded by the per-operation deadline.
func (c *Client) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, c.timeout())
}

func (c *Client) stallSeconds() int {
	if c.Stall <= 0 {
		return 30
	}
	return max(1, int(c.Stall/time.Second))
}

func (c *Client) connectSeconds() int {
	if c.Connect <= 0 {
		return int(DefaultConnect / time.Second)
	}
	return max(1, int(c.Connect/time.Second))
}

// sshOnce remembers whether the user has an ssh command of their own.
type sshOnce struct {
	once sync.Once
	own  bool
}

// IsSSH reports whether url reaches its repository over SSH: ssh://,
// git+ssh://, or the scp-like user@host:path.
func IsSSH(url string) bool {
	scheme, _, ok := strings.Cut(url, "://")
	if ok {
		return scheme == "ssh" || scheme == "git+ssh" || scheme == "ssh+git"
	}
	host, _, ok := strings.Cut(url, ":")
	return ok && !strings.Contains(host, "/") && len(host) > 1 // not C:\ nor a path
}

// netEnv is what git's environment gains for a command that reaches
// url: for SSH, GIT_SSH_COMMAND with skillpm's bounds when the user set
// no GIT_SSH_COMMAND, GIT_SSH or core.sshCommand (read once per Client,
// from the same config git will read).
func (c *Client) netEnv(ctx context.Context, dir, url string) []string {
	if !IsSSH(url) || c.ownSSH(ctx, dir) {
		return nil
	}
	alive := max(1, c.stallSeconds()/3)
	return []string{fmt.Sprintf("GIT_SSH_COMMAND=ssh -o ConnectTimeout=%d -o ServerAliveInterval=%d -o ServerAliveCountMax=3",
		c.connectSeconds(), alive)}
}

func (c *Client) ownSSH(ctx context.Context, dir string) bool {
	c.ssh.once.Do(func() {
		for _, kv := range append(os.Environ(), c.Env...) {
			k, v, _ := strings.Cut(kv, "=")
			if (k == "GIT_SSH_COMMAND" || k == "GIT_SSH") && v != "" {
				c.ssh.own = true
			}
		}
		if !c.ssh.own {
			// Exit 1 is "not set"; any output is the user's command.
			out, _ := c.run(ctx, dir, "config", "--get", "core.sshCommand")
			c.ssh.own = strings.TrimSpace(string(out)) != ""
		}
	})
	return c.ssh.own
}
