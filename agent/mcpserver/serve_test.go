package mcpserver

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// blockingServer serves one tool, "wait", that returns when its ctx is
// done or release is closed, and reports its ctx's cause on stopped.
func blockingServer(release <-chan struct{}, started chan<- struct{}, stopped chan<- error) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	s.AddTool(&mcp.Tool{Name: "wait", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		started <- struct{}{}
		select {
		case <-ctx.Done():
			stopped <- context.Cause(ctx)
			return textResult("stopped", true), nil
		case <-release:
			return textResult("done", false), nil
		}
	})
	return s
}

// pipes connects a server and a client as stdio does: endInput closes
// the client's end of the server's input, which the server reads as EOF.
func pipes() (server, client mcp.Transport, endInput func()) {
	inR, inW := io.Pipe()   // client -> server
	outR, outW := io.Pipe() // server -> client
	return &mcp.IOTransport{Reader: inR, Writer: outW},
		&mcp.IOTransport{Reader: outR, Writer: inW},
		func() { inW.Close() }
}

// serveAndCall runs Serve on one end of a pipe and starts a call of
// "wait" from a client on the other; it returns a function that ends the
// server's input, the call's outcome and Serve's.
func serveAndCall(t *testing.T, ctx context.Context, s *mcp.Server, opts ServeOptions, started <-chan struct{}) (func(), <-chan *mcp.CallToolResult, <-chan error) {
	t.Helper()
	st, ct, endInput := pipes()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, s, st, opts) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	called := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "wait"})
		called <- res
	}()
	wait(t, started, "the call to start")
	return endInput, called, served
}

// wait is a hang guard, not a timing assertion.
func wait[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// TestServeSignal: when ctx is done mid-call (SIGTERM), the call's ctx is
// cancelled with ctx's cause and Serve says it cut one call off, as an
// error that is also context.Canceled.
func TestServeSignal(t *testing.T) {
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	s := blockingServer(make(chan struct{}), started, stopped)
	ctx, cancel := context.WithCancelCause(context.Background())
	_, _, served := serveAndCall(t, ctx, s, ServeOptions{}, started)
	sigErr := errors.New("terminated signal received")
	cancel(sigErr)
	if cause := wait(t, stopped, "the call to be stopped"); !errors.Is(cause, sigErr) {
		t.Errorf("call's ctx cause = %v; want %v", cause, sigErr)
	}
	err := wait(t, served, "Serve to return")
	var co *CutOffError
	if !errors.As(err, &co) || co.Calls != 1 || !errors.Is(err, sigErr) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve = %v; want a CutOffError of 1 call, caused by the signal, and context.Canceled", err)
	}
}

// TestServeInputEnded: the client closes its end mid-call; after the
// drain time the call is stopped and Serve says so.
func TestServeInputEnded(t *testing.T) {
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	s := blockingServer(make(chan struct{}), started, stopped)
	endInput, _, served := serveAndCall(t, context.Background(), s, ServeOptions{Drain: 100 * time.Millisecond}, started)
	endInput()
	wait(t, stopped, "the call to be stopped")
	err := wait(t, served, "Serve to return")
	var co *CutOffError
	if !errors.As(err, &co) || co.Calls != 1 || !errors.Is(err, ErrInputEnded) || errors.Is(err, context.Canceled) {
		t.Fatalf("Serve = %v; want a CutOffError of 1 call, ErrInputEnded", err)
	}
}

// TestServeDrains: a call still running when the input ends is answered
// when it finishes within the drain time, and Serve then returns nil.
func TestServeDrains(t *testing.T) {
	started, stopped := make(chan struct{}, 1), make(chan error, 1)
	release := make(chan struct{})
	s := blockingServer(release, started, stopped)
	endInput, called, served := serveAndCall(t, context.Background(), s, ServeOptions{Drain: time.Minute}, started)
	endInput()
	// Let the server read the end of input first, so the answer comes
	// while it drains (if it comes before, the test passes trivially).
	time.Sleep(100 * time.Millisecond)
	close(release)
	if res := wait(t, called, "the call's answer"); res == nil || res.IsError || text(res) != "done" {
		t.Errorf("call result = %+v; want done", res)
	}
	if err := wait(t, served, "Serve to return"); err != nil {
		t.Errorf("Serve = %v; want nil, every call answered", err)
	}
	select {
	case cause := <-stopped:
		t.Errorf("the call was stopped (%v); want it answered", cause)
	default:
	}
}
