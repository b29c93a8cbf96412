package netproxy

import (
	"fmt"
	"io"
	"net"
	"os"
	"sync"

	"github.com/skillpm/skillpm/sandbox"
)

// RunChild is the main of a proxy child (sandbox.ProxyChildArg): it
// serves the network.outbound hosts args[2:] on the listening socket
// passed as file descriptor 3, reporting on stdout, until stdin reaches
// end of file (the parent closed it, or died). It returns the process's
// exit code.
func RunChild(args []string, stdin io.Reader, stdout io.Writer) int {
	var mu sync.Mutex
	say := func(kind, text string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(stdout, sandbox.ProxyLine(kind, text))
	}
	if !sandbox.IsProxyChild(args) {
		say("error", "not a proxy child")
		return 2
	}
	p, err := New(args[2:])
	if err != nil {
		say("error", err.Error())
		return 2
	}
	f := os.NewFile(3, "proxy listener")
	if f == nil {
		say("error", "no listener on file descriptor 3")
		return 2
	}
	l, err := net.FileListener(f)
	f.Close()
	if err != nil {
		say("error", "listener on file descriptor 3: "+err.Error())
		return 2
	}
	p.OnDeny = func(entry string) { say("denied", entry) }
	served := make(chan error, 1)
	go func() { served <- p.Serve(l) }()
	say("ready", "")
	stopped := make(chan struct{})
	go func() {
		io.Copy(io.Discard, stdin)
		close(stopped)
		p.Close()
		l.Close() // in case Serve had not started: it returns at once
	}()
	err = <-served
	select {
	case <-stopped:
		return 0
	default:
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "skillpm sandbox proxy:", err)
		return 1
	}
	return 0
}

// Start serves a proxy for the network.outbound hosts on l, in this
// process, until Close.
func Start(outbound []string, l net.Listener) (*Proxy, error) {
	p, err := New(outbound)
	if err != nil {
		return nil, err
	}
	go p.Serve(l)
	return p, nil
}
