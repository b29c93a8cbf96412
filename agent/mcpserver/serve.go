package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults for zero ServeOptions fields.
const (
	// DefaultDrain is how long calls still running when the client closes
	// its input may take to finish.
	DefaultDrain = 5 * time.Second
	// DefaultStopWait bounds the wait for cancelled calls to return.
	DefaultStopWait = 10 * time.Second
)

// ServeOptions configures Serve. The zero value is ready to use.
type ServeOptions struct {
	// Drain is how long calls still running at the end of the input may
	// take to finish before they are stopped. If <= 0, DefaultDrain (5s).
	Drain time.Duration
	// StopWait bounds how long Serve waits for stopped calls to return
	// (a stopped tool's process group gets SIGTERM, then SIGKILL). If
	// <= 0, DefaultStopWait (10s).
	StopWait time.Duration
}

// ErrInputEnded is the cause in a *CutOffError when the client closed the
// input while calls were still running.
var ErrInputEnded = errors.New("the client closed the input")

// CutOffError is Serve's error when it stopped calls that were still
// running: ctx was done (a signal) or the input ended and they did not
// finish within the drain time.
type CutOffError struct {
	// Calls is how many calls were stopped.
	Calls int
	// Cause is ctx's cause, or wraps ErrInputEnded.
	Cause  error
	ctxErr error
}

func (e *CutOffError) Error() string {
	s := "s"
	if e.Calls == 1 {
		s = ""
	}
	return fmt.Sprintf("stopped %d call%s still running: %v", e.Calls, s, e.Cause)
}

// Unwrap returns the cause and, when ctx ended the server, ctx's error, so
// errors.Is(err, context.Canceled) holds after a signal.
func (e *CutOffError) Unwrap() []error {
	if e.ctxErr != nil {
		return []error{e.Cause, e.ctxErr}
	}
	return []error{e.Cause}
}

// Serve runs s on the transport t (stdio, for 'skillpm mcp') until the
// client closes its input or ctx is done, and makes sure nothing outlives
// it:
//
//   - At the end of the input, calls already read are answered before
//     Serve returns, so a client that writes its requests and closes its
//     end still gets every response; calls still running after
//     opts.Drain are stopped.
//   - When ctx is done (SIGTERM, Ctrl-C), calls in flight are stopped at
//     once: their ctx is cancelled, which kills each tool's process group.
//
// Serve returns nil when every call read was answered, and a *CutOffError
// when it stopped some. It adds a middleware to s that ties every
// request's ctx to Serve, so give each server to Serve once.
func Serve(ctx context.Context, s *mcp.Server, t mcp.Transport, opts ServeOptions) error {
	if opts.Drain <= 0 {
		opts.Drain = DefaultDrain
	}
	if opts.StopWait <= 0 {
		opts.StopWait = DefaultStopWait
	}
	calls, stopCalls := context.WithCancelCause(context.Background())
	defer stopCalls(nil)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			defer context.AfterFunc(calls, func() { cancel(context.Cause(calls)) })()
			return next(ctx, method, req)
		}
	})
	tr := &drainTransport{Transport: t, drain: opts.Drain, calls: calls, stop: stopCalls}
	// The session's own ctx must outlive ctx: when ctx is done, calls are
	// stopped first, then the session is closed.
	ss, err := s.Connect(context.WithoutCancel(ctx), tr, nil)
	if err != nil {
		return fmt.Errorf("start MCP session: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()

	var werr error
	select {
	case werr = <-ended:
	case <-ctx.Done():
		tr.cutOff(context.Cause(ctx))
		go ss.Close() // stops reading; waits for the stopped calls to return
		select {
		case werr = <-ended:
		case <-time.After(opts.StopWait):
			werr = fmt.Errorf("calls did not return within %s of being stopped", opts.StopWait)
		}
	}
	if n, cause := tr.cut(); n > 0 {
		return &CutOffError{Calls: n, Cause: cause, ctxErr: ctx.Err()}
	}
	if werr != nil && ctx.Err() == nil {
		return werr
	}
	return nil
}

// drainTransport wraps the client's transport: it keeps track of calls
// read and not yet answered, and delays the end of the input until they
// are answered, or the drain time has passed and they are stopped.
// Without it the SDK closes the session at EOF and drops calls in flight.
type drainTransport struct {
	mcp.Transport
	drain time.Duration
	calls context.Context // done once calls in flight are stopped
	stop  context.CancelCauseFunc

	mu      sync.Mutex
	conn    *drainConn
	nCut    int
	cutWhy  error
	stopped bool
}

// Connect wraps the underlying connection.
func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	dc := &drainConn{Connection: c, t: t, pending: map[string]bool{}, changed: make(chan struct{}, 1)}
	t.mu.Lock()
	t.conn = dc
	t.mu.Unlock()
	return dc, nil
}

// cutOff stops every call in flight, once, and remembers how many there
// were and why.
func (t *drainTransport) cutOff(cause error) {
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return
	}
	t.stopped = true
	if t.conn != nil {
		t.nCut = t.conn.inFlight()
	}
	t.cutWhy = cause
	t.mu.Unlock()
	t.stop(cause)
}

// cut returns how many calls cutOff stopped, and why.
func (t *drainTransport) cut() (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.nCut, t.cutWhy
}

type drainConn struct {
	mcp.Connection
	t       *drainTransport
	mu      sync.Mutex
	pending map[string]bool // calls read and not yet answered, by idKey
	changed chan struct{}   // signalled when pending shrinks
}

func (c *drainConn) inFlight() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// Read records calls; at the end of input it waits for them to be
// answered, for at most the drain time, and then stops them.
func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err == nil {
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.pending[idKey(req.ID)] = true
			c.mu.Unlock()
		}
		return msg, nil
	}
	deadline := time.NewTimer(c.t.drain)
	defer deadline.Stop()
	for c.inFlight() > 0 {
		select {
		case <-c.changed:
		case <-c.t.calls.Done(): // already stopped (ctx done)
			return msg, err
		case <-ctx.Done():
			return msg, err
		case <-deadline.C:
			c.t.cutOff(fmt.Errorf("%w %s ago", ErrInputEnded, c.t.drain))
			return msg, err
		}
	}
	return msg, err
}

// Write records answers. An answer counts as given before it is written:
// the client may act on it (and the server be stopped) before Write
// returns.
func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, idKey(resp.ID))
		c.mu.Unlock()
		defer func() {
			select {
			case c.changed <- struct{}{}:
			default:
			}
		}()
	}
	return c.Connection.Write(ctx, msg)
}

// idKey is a request id as a map key. Transports do not all decode
// numbers alike (int64 here, float64 there), so numbers compare by value.
func idKey(id jsonrpc.ID) string {
	if s, ok := id.Raw().(string); ok {
		return "s:" + s
	}
	return fmt.Sprint("n:", id.Raw())
}
