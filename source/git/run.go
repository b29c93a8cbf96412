package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// command builds a git command that is safe to point at a hostile
// repository: no terminal prompts (credential helpers and GIT_ASKPASS
// still work), only the transports skillpm names (never ext::), no
// hooks, no fsmonitor, and the user's global config (for credentials and
// SSH) but not the repository's own.
func (c *Client) command(ctx context.Context, dir string, args ...string) *exec.Cmd {
	bin := c.Git
	if bin == "" {
		bin = "git"
	}
	full := append([]string{
		"-c", "core.hooksPath=/dev/null",
		"-c", "core.fsmonitor=false",
		"-c", "protocol.ext.allow=never",
		"-c", "protocol.file.allow=always",
		"-c", "fetch.fsckObjects=true",
		"-c", "gc.auto=0", "-c", "maintenance.auto=false", // the cache is skillpm's, collected by nobody mid-install
		"-c", "http.lowSpeedLimit=1024",
		"-c", fmt.Sprintf("http.lowSpeedTime=%d", c.stallSeconds()),
	}, args...)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_TERMINAL_PROMPT=0",
		"GIT_ALLOW_PROTOCOL=file:git:http:https:ssh",
		"GIT_CONFIG_NOSYSTEM=1",
		"LC_ALL=C",
	)
	cmd.Env = append(cmd.Env, c.Env...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// run runs git and returns its stdout, bounded, or an error wrapping
// ErrNoGit or ErrFailed with git's own message.
func (c *Client) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return c.runEnv(ctx, dir, nil, args...)
}

// runNet is run for a command that reaches url over the network: it
// gets the transport's bounds (netEnv).
func (c *Client) runNet(ctx context.Context, dir, url string, args ...string) ([]byte, error) {
	return c.runEnv(ctx, dir, c.netEnv(ctx, dir, url), args...)
}

func (c *Client) runEnv(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	ctx, cancel := c.opContext(ctx)
	defer cancel()
	cmd := c.command(ctx, dir, args...)
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &limitedBuffer{buf: &stdout, max: maxListing}
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 64 << 10}
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: git %s timed out after %s", ErrFailed, args[0], c.timeout())
		}
		return nil, ctx.Err()
	}
	if cmd.ProcessState == nil {
		return nil, c.startError(err) // git never ran
	}
	if errors.Is(err, errListingTooLarge) {
		return nil, fmt.Errorf("%w: git %s printed more than %d bytes", ErrFailed, args[0], maxListing)
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" {
		msg = err.Error()
	}
	return nil, classify(dir, msg)
}

// classify turns git's message, from a git run in dir, into the error a
// caller tells apart.
func classify(dir, msg string) error {
	low := strings.ToLower(msg)
	switch {
	case localLine(low, "no space left on device"):
		// The machine's failure, not the repository's.
		return fmt.Errorf("%s: %w", msg, &fs.PathError{Op: "git write in", Path: dir, Err: syscall.ENOSPC})
	case localLine(low, "disk quota exceeded"):
		return fmt.Errorf("%s: %w", msg, &fs.PathError{Op: "git write in", Path: dir, Err: syscall.EDQUOT})
	case strings.Contains(low, "could not read username"), strings.Contains(low, "could not read password"),
		strings.Contains(low, "authentication failed"), strings.Contains(low, "permission denied (publickey"),
		strings.Contains(low, "http basic: access denied"):
		return fmt.Errorf("%w: %s (set up a git credential helper, GIT_ASKPASS or an SSH key for this host, as for 'git clone')", ErrAuth, msg)
	case strings.Contains(low, "does not appear to be a git repository"), strings.Contains(low, "repository not found"),
		strings.Contains(low, "' not found"), strings.Contains(low, "no such repository"):
		return fmt.Errorf("repository %w: %s", ErrNotFound, msg)
	}
	return fmt.Errorf("%w: %s", ErrFailed, msg)
}

// localLine reports whether a line of git's lower-cased message low
// that git wrote of its own holds s: not one it relays from the server
// ("remote: ...", "fatal: remote error: ..."), whose full disk is the
// server's failure, and whose words the server chooses.
func localLine(low, s string) bool {
	// Progress lines end in carriage returns, a line of git's own can
	// follow one.
	for _, l := range strings.FieldsFunc(low, func(r rune) bool { return r == '\n' || r == '\r' }) {
		l = strings.TrimSpace(l)
		if strings.Contains(l, s) && !strings.HasPrefix(l, "remote:") && !strings.Contains(l, "remote error:") {
			return true
		}
	}
	return false
}

func (c *Client) startError(err error) error {
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w (%v): install git (apt-get install git, brew install git) to use git sources", ErrNoGit, err)
	}
	return err
}

var errListingTooLarge = errors.New("output too large")

// limitedBuffer writes into buf and fails past max bytes.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if l.buf.Len()+len(p) > l.max {
		return 0, errListingTooLarge
	}
	return l.buf.Write(p)
}
