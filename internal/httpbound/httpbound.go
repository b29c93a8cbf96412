// Package httpbound bounds HTTP exchanges in time and size, for every
// client skillpm builds (registries today; git and HTTPS sources next):
// a connect timeout, a response-header timeout, a stall timeout on
// bodies (too few bytes arriving for too long), and body readers capped
// at a size.
//
// A server that accepts a connection and never answers, or drips a byte
// every few seconds, fails with a *TimeoutError naming the host and the
// setting that ran out, instead of hanging the caller.
package httpbound

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for the zero fields of Timeouts.
const (
	DefaultConnect        = 10 * time.Second
	DefaultResponseHeader = 30 * time.Second
	DefaultStall          = 30 * time.Second
)

// StallBytes is how much a body must deliver in every Stall period while
// it is being read. A server that drips a byte every few seconds never
// goes quiet for a whole period, but never delivers this much either.
const StallBytes = 1024

// Timeouts bound the phases of an HTTP exchange. A zero field takes its
// default; a negative one turns that timeout off.
type Timeouts struct {
	// Connect bounds dialling and the TLS handshake. Default 10s.
	Connect time.Duration
	// ResponseHeader bounds the wait for response headers once the
	// request has been sent. Default 30s.
	ResponseHeader time.Duration
	// Stall bounds how long a response body may be read with fewer than
	// StallBytes arriving. Default 30s.
	Stall time.Duration
}

// WithDefaults returns t with every zero field set to its default.
func (t Timeouts) WithDefaults() Timeouts {
	if t.Connect == 0 {
		t.Connect = DefaultConnect
	}
	if t.ResponseHeader == 0 {
		t.ResponseHeader = DefaultResponseHeader
	}
	if t.Stall == 0 {
		t.Stall = DefaultStall
	}
	return t
}

// Phase names the part of an exchange that timed out, as the user config
// spells its setting.
type Phase string

// The phases a TimeoutError reports.
const (
	PhaseConnect        Phase = "connect"
	PhaseResponseHeader Phase = "response_header"
	PhaseStall          Phase = "stall"
)

// TimeoutError is a server that took longer than a Timeouts setting
// allows. It is a net.Error whose Timeout method reports true.
type TimeoutError struct {
	Host  string        // host[:port] of the server
	Phase Phase         // which setting ran out
	After time.Duration // its value
}

func (e *TimeoutError) Error() string {
	switch e.Phase {
	case PhaseConnect:
		return fmt.Sprintf("%s: could not connect within %s (connect timeout)", e.Host, e.After)
	case PhaseResponseHeader:
		return fmt.Sprintf("%s: sent no response within %s (response_header timeout)", e.Host, e.After)
	}
	return fmt.Sprintf("%s: stalled, less than %d bytes in %s (stall timeout)", e.Host, StallBytes, e.After)
}

// Timeout reports true: this is a timeout.
func (e *TimeoutError) Timeout() bool { return true }

// Temporary reports false (the net.Error method is deprecated).
func (e *TimeoutError) Temporary() bool { return false }

var _ net.Error = (*TimeoutError)(nil)

// NewTransport returns a clone of http.DefaultTransport whose dials and
// TLS handshakes are bounded by t.Connect. Wrap it (or any other
// transport) with Wrap for the other timeouts.
func NewTransport(t Timeouts) *http.Transport {
	t = t.WithDefaults()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{KeepAlive: 30 * time.Second}
	if t.Connect > 0 {
		d.Timeout = t.Connect
		tr.TLSHandshakeTimeout = t.Connect
	}
	tr.DialContext = d.DialContext
	return tr
}

// Wrap returns a RoundTripper that applies t's response-header and stall
// timeouts to every exchange through base, and reports base's own
// timeouts (the dial and TLS handshake of a NewTransport) as connect
// timeouts. All of them come back as *TimeoutError.
func Wrap(base http.RoundTripper, t Timeouts) http.RoundTripper {
	return &transport{base: base, t: t.WithDefaults()}
}

type transport struct {
	base http.RoundTripper
	t    Timeouts
}

var (
	errHeaderTimeout = errors.New("response header timeout")
	errStalled       = errors.New("stalled")
)

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	var (
		mu      sync.Mutex
		timer   *time.Timer
		stopped bool
	)
	// A request body is watched as a response body is: a server that
	// takes less than StallBytes of it in a Stall period (one that reads
	// the head and then nothing, so that the write blocks once the
	// socket buffers are full) ends the request.
	var upload *uploadBody
	if t.t.Stall > 0 && req.Body != nil && req.Body != http.NoBody {
		upload = &uploadBody{rc: req.Body, period: t.t.Stall, cancel: cancel}
	}
	if t.t.ResponseHeader > 0 || upload != nil {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) {
				if upload != nil {
					upload.stop()
				}
				if t.t.ResponseHeader <= 0 {
					return
				}
				// The wait starts once the request is written, as with
				// http.Transport.ResponseHeaderTimeout: a large upload
				// is not a slow answer.
				mu.Lock()
				defer mu.Unlock()
				if stopped {
					return
				}
				if timer != nil {
					timer.Stop()
				}
				timer = time.AfterFunc(t.t.ResponseHeader, func() { cancel(errHeaderTimeout) })
			},
		})
	}
	out := req.WithContext(ctx)
	if upload != nil {
		out.Body = upload
	}
	resp, err := t.base.RoundTrip(out)
	if upload != nil {
		upload.stop()
	}
	mu.Lock()
	stopped = true
	if timer != nil {
		timer.Stop()
	}
	mu.Unlock()
	host := req.URL.Host
	if err != nil {
		defer cancel(nil)
		switch context.Cause(ctx) {
		case errHeaderTimeout:
			return nil, &TimeoutError{Host: host, Phase: PhaseResponseHeader, After: t.t.ResponseHeader}
		case errStalled:
			return nil, &TimeoutError{Host: host, Phase: PhaseStall, After: t.t.Stall}
		}
		var ne net.Error
		if req.Context().Err() == nil && errors.As(err, &ne) && ne.Timeout() {
			return nil, &TimeoutError{Host: host, Phase: PhaseConnect, After: t.t.Connect}
		}
		return nil, err
	}
	if context.Cause(ctx) == errHeaderTimeout {
		resp.Body.Close()
		cancel(nil)
		return nil, &TimeoutError{Host: host, Phase: PhaseResponseHeader, After: t.t.ResponseHeader}
	}
	if t.t.Stall <= 0 || resp.Body == nil || resp.Body == http.NoBody {
		resp.Body = &cancelBody{ReadCloser: resp.Body, cancel: cancel}
		return resp, nil
	}
	resp.Body = newStallBody(resp.Body, host, t.t.Stall, cancel)
	return resp, nil
}

// cancelBody releases the request's context when the body is closed.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelCauseFunc
}

func (b *cancelBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel(nil)
	return err
}

// stallBody fails a body that delivers fewer than StallBytes in a Stall
// period during which its reader spent most of the time waiting on it.
// A reader that is busy elsewhere (not inside Read) is not the server's
// fault, and is never blamed on it.
type stallBody struct {
	rc     io.ReadCloser
	host   string
	period time.Duration
	cancel context.CancelCauseFunc

	got       atomic.Int64 // bytes since the last check
	waited    atomic.Int64 // nanoseconds spent in Read since the last check
	readStart atomic.Int64 // unix nanoseconds the current Read began; 0 when none
	lastCheck atomic.Int64 // unix nanoseconds of the last check
	stalled   atomic.Bool
	mu        sync.Mutex
	timer     *time.Timer
	done      bool
}

func newStallBody(rc io.ReadCloser, host string, period time.Duration, cancel context.CancelCauseFunc) *stallBody {
	b := &stallBody{rc: rc, host: host, period: period, cancel: cancel}
	b.lastCheck.Store(time.Now().UnixNano())
	b.timer = time.AfterFunc(period, b.check)
	return b
}

func (b *stallBody) check() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	now := time.Now().UnixNano()
	waited := b.waited.Swap(0)
	if start := b.readStart.Load(); start != 0 {
		waited += now - max(start, b.lastCheck.Load())
	}
	b.lastCheck.Store(now)
	if got := b.got.Swap(0); got < StallBytes && waited > int64(b.period)/2 {
		b.stalled.Store(true)
		b.cancel(errStalled)
		return
	}
	b.timer.Reset(b.period)
}

func (b *stallBody) Read(p []byte) (int, error) {
	start := time.Now().UnixNano()
	b.readStart.Store(start)
	n, err := b.rc.Read(p)
	b.readStart.Store(0)
	b.waited.Add(time.Now().UnixNano() - max(start, b.lastCheck.Load()))
	b.got.Add(int64(n))
	if err != nil {
		if b.stalled.Load() && !errors.Is(err, io.EOF) {
			err = &TimeoutError{Host: b.host, Phase: PhaseStall, After: b.period}
		}
		b.stop()
	}
	return n, err
}

func (b *stallBody) Close() error {
	err := b.rc.Close()
	b.stop()
	b.cancel(nil)
	return err
}

func (b *stallBody) stop() {
	b.mu.Lock()
	b.done = true
	b.timer.Stop()
	b.mu.Unlock()
}

// uploadBody is a request body that fails the request when the server
// takes less than StallBytes of it in a period. The clock starts at the
// first read, when the connection is up and the head written, and stops
// when the request has been written.
type uploadBody struct {
	rc     io.ReadCloser
	period time.Duration
	cancel context.CancelCauseFunc

	got   atomic.Int64
	mu    sync.Mutex
	timer *time.Timer
	done  bool
}

func (b *uploadBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	if b.timer == nil && !b.done {
		b.timer = time.AfterFunc(b.period, b.check)
	}
	b.mu.Unlock()
	n, err := b.rc.Read(p)
	b.got.Add(int64(n))
	return n, err
}

func (b *uploadBody) check() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	if b.got.Swap(0) < StallBytes {
		b.cancel(errStalled)
		return
	}
	b.timer.Reset(b.period)
}

func (b *uploadBody) stop() {
	b.mu.Lock()
	b.done = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
}

func (b *uploadBody) Close() error {
	b.stop()
	return b.rc.Close()
}

// TooLongError is a body longer than the reader allows.
type TooLongError struct {
	Limit int64 // the bytes allowed
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("more than the %d bytes expected", e.Limit)
}

// LimitReader returns a reader of at most n bytes of r that fails with a
// *TooLongError, rather than stopping quietly as io.LimitReader does,
// when r holds more: a body longer than its descriptor or limit is
// refused, not truncated. It never reads more than n+1 bytes of r.
func LimitReader(r io.Reader, n int64) io.Reader {
	return &limitReader{r: r, left: n, limit: n}
}

// LimitReadCloser is LimitReader for a body that must be closed.
func LimitReadCloser(rc io.ReadCloser, n int64) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{LimitReader(rc, n), rc}
}

type limitReader struct {
	r     io.Reader
	left  int64
	limit int64
	err   error
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	if l.left <= 0 {
		// Is there more? One byte says so.
		var one [1]byte
		n, err := io.ReadFull(l.r, one[:])
		if n > 0 {
			l.err = &TooLongError{Limit: l.limit}
			return 0, l.err
		}
		if err == io.ErrUnexpectedEOF {
			err = io.EOF
		}
		return 0, err
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}
