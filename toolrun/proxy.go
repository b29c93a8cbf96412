package toolrun

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillpm/skillpm/sandbox"
)

// A Proxy is the filtering proxy of one confined run (Sandbox.Proxy),
// serving until Close.
type Proxy interface {
	// Denied is what the proxy refused, once each, in order. The run
	// asks once the tool has exited.
	Denied() []string
	Close() error
}

// proxyStartTimeout bounds the wait for a proxy child to report ready.
const proxyStartTimeout = 10 * time.Second

// ProxyProcess returns a Sandbox.Proxy that serves the filtering proxy in
// a child process: the program program returns, run with
// sandbox.ProxyChildArg (skillpm-full; see netproxy.RunChild). The front
// program runs tools this way without linking an HTTP server. program is
// called only when a tool needs the proxy.
func ProxyProcess(program func() (string, error)) func(outbound []string, l net.Listener) (Proxy, error) {
	return func(outbound []string, l net.Listener) (Proxy, error) {
		path, err := program()
		if err != nil {
			return nil, err
		}
		fl, ok := l.(interface{ File() (*os.File, error) })
		if !ok {
			return nil, fmt.Errorf("filtering proxy: cannot pass a %T to a child", l)
		}
		f, err := fl.File()
		if err != nil {
			return nil, fmt.Errorf("filtering proxy: %w", err)
		}
		defer f.Close()
		cmd := exec.Command(path, append([]string{sandbox.ProxyChildArg}, outbound...)...)
		cmd.ExtraFiles = []*os.File{f}
		// A group of its own, as the tool has: the Ctrl-C a terminal sends
		// skillpm's group must not end the proxy while the tool stops
		// gracefully. End of file on stdin ends it, however skillpm ends.
		setGroup(cmd)
		// Only a failure to serve is written there: kept for the error.
		stderr := &capped{max: 4 << 10}
		cmd.Stderr = stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("filtering proxy: %w", err)
		}
		c := &proxyChild{cmd: cmd, stdin: stdin, done: make(chan struct{})}
		ready := make(chan error, 1)
		go c.read(stdout, ready)
		timer := time.NewTimer(proxyStartTimeout)
		defer timer.Stop()
		select {
		case err = <-ready:
		case <-timer.C:
			err = fmt.Errorf("did not start within %v", proxyStartTimeout)
		}
		var reported childError
		if err != nil && !errors.As(err, &reported) {
			err = fmt.Errorf("filtering proxy (%s): %w", path, err)
		}
		if err != nil {
			c.Close() // waits for the child, so stderr is complete
			if said := strings.TrimSpace(stderr.String()); said != "" && !errors.As(err, &reported) {
				err = fmt.Errorf("%w; it said: %s", err, said)
			}
			return nil, err
		}
		// The child holds the socket now. This process's copy is closed
		// without removing the socket file the sandbox connects to.
		if ul, ok := l.(*net.UnixListener); ok {
			ul.SetUnlinkOnClose(false)
		}
		l.Close()
		return c, nil
	}
}

// proxyChild is a proxy served by a child process.
type proxyChild struct {
	cmd   *exec.Cmd
	stdin io.Closer
	done  chan struct{} // closed when the child's report has ended

	mu     sync.Mutex
	denied []string

	once sync.Once
	err  error
}

// childError is why a proxy child could not serve, in its words: those
// the proxy says in process (a bad network.outbound entry).
type childError string

func (e childError) Error() string { return string(e) }

// read reads the child's report: the first line to ready, then each
// refusal, until end of file. Lines are read whole, however long (a
// refusal names the host a tool asked for): the child waits for each to
// be taken before it answers the refused client.
func (c *proxyChild) read(r io.Reader, ready chan<- error) {
	defer close(c.done)
	defer io.Copy(io.Discard, r) // whatever happens here, never stall the child
	br := bufio.NewReader(r)
	first := true
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			break // a last line without its newline is cut short: the child died
		}
		line = strings.TrimSuffix(line, "\n")
		kind, text, ok := sandbox.ParseProxyLine(line)
		switch {
		case first && kind == "ready":
			ready <- nil
		case first && kind == "error" && ok:
			ready <- childError(text)
		case first:
			ready <- fmt.Errorf("unexpected report %q", line)
		case kind == "denied" && ok:
			c.mu.Lock()
			if len(c.denied) < 100 && !slices.Contains(c.denied, text) {
				c.denied = append(c.denied, text)
			}
			c.mu.Unlock()
		}
		if first {
			first = false
			if kind != "ready" {
				return
			}
		}
	}
	if first {
		ready <- errors.New("exited before it was ready")
	}
}

// Denied stops the child, so that every refusal it reported has been
// read, and returns them.
func (c *proxyChild) Denied() []string {
	c.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.denied)
}

// Close stops the child: end of file on its stdin ends it; one that does
// not end within a few seconds is killed.
func (c *proxyChild) Close() error {
	c.once.Do(func() {
		c.stdin.Close()
		select {
		case <-c.done:
		case <-time.After(5 * time.Second):
			c.cmd.Process.Kill()
			<-c.done
		}
		c.err = c.cmd.Wait()
	})
	return c.err
}
