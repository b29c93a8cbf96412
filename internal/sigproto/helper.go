package sigproto

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/skillpm/skillpm/internal/siblings"
)

// FindHelper returns the path of the skillpm-sigstore program: the one
// beside the running executable (symlinks resolved), else the first on
// PATH. It wraps ErrHelperMissing when there is none.
func FindHelper() (string, error) {
	p, beside, err := siblings.Find(HelperName)
	if err != nil {
		return "", fmt.Errorf("%w: signing and signature checks run in it, and it is neither at %s nor on PATH; install it beside skillpm (go install github.com/skillpm/skillpm/cmd/...)", ErrHelperMissing, beside)
	}
	return p, nil
}

// Helper is a Backend that forwards each request to one skillpm-sigstore
// process, started on first use and kept for the next requests (one at
// a time). It is safe for concurrent use; the zero value finds the
// helper with FindHelper.
type Helper struct {
	// Path is the helper program; "" means FindHelper.
	Path string
	// Timeout bounds each request, whatever the caller's context: a
	// helper that has not answered by then is killed and the call fails
	// with ErrHelper. 0 means DefaultTimeout.
	Timeout time.Duration

	closeGrace time.Duration // how long Close waits for the helper to exit; 0: 5s

	mu      sync.Mutex
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  bytes.Buffer
	stderrw *limitedWriter // writes stderr, from exec's goroutine
	broken  error
}

// DefaultTimeout bounds one request to the helper when Helper.Timeout
// is zero: a check takes milliseconds, and keyless signing's network
// calls are bounded by the helper itself (Keyless.Timeout).
const DefaultTimeout = 5 * time.Minute

// Verify implements Backend.
func (h *Helper) Verify(ctx context.Context, q *VerifyRequest) (*VerifyResponse, error) {
	resp, err := h.call(ctx, &request{Verify: q})
	if err != nil {
		return nil, err
	}
	if resp.Verify == nil {
		return nil, fmt.Errorf("%w: no verify answer", ErrHelper)
	}
	return resp.Verify, nil
}

// Sign implements Backend.
func (h *Helper) Sign(ctx context.Context, q *SignRequest) (*SignResponse, error) {
	resp, err := h.call(ctx, &request{Sign: q})
	if err != nil {
		return nil, err
	}
	if resp.Sign == nil {
		return nil, fmt.Errorf("%w: no sign answer", ErrHelper)
	}
	return resp.Sign, nil
}

// Describe implements Backend.
func (h *Helper) Describe(ctx context.Context, q *DescribeRequest) (*DescribeResponse, error) {
	resp, err := h.call(ctx, &request{Describe: q})
	if err != nil {
		return nil, err
	}
	if resp.Describe == nil {
		return nil, fmt.Errorf("%w: no describe answer", ErrHelper)
	}
	return resp.Describe, nil
}

// Close ends the helper process, if one was started, and waits for it.
func (h *Helper) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cmd == nil {
		return nil
	}
	h.in.Close()
	// A helper exits when its input ends; one that does not is killed.
	grace := h.closeGrace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	done := make(chan error, 1)
	go func() { done <- h.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(grace):
		h.cmd.Process.Kill()
		err = <-done
	}
	h.cmd = nil
	if h.broken == nil {
		h.broken = errors.New("closed")
	}
	return err
}

// start runs the helper; h.mu is held.
func (h *Helper) start() error {
	path := h.Path
	if path == "" {
		p, err := FindHelper()
		if err != nil {
			return err
		}
		path = p
	}
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	h.stderrw = &limitedWriter{w: &h.stderr, n: 64 << 10}
	cmd.Stderr = h.stderrw
	cmd.WaitDelay = 5 * time.Second // a child holding stderr open does not hold up Wait
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%w: start %s: %v", ErrHelper, path, err)
	}
	h.cmd, h.in, h.out = cmd, in, bufio.NewReader(out)
	return nil
}

// call sends one request and reads its response. A request's own error
// comes back as an error of its text; a helper that cannot be started,
// dies or answers out of protocol leaves h broken (every later call
// fails the same way).
func (h *Helper) call(ctx context.Context, req *request) (*response, error) {
	req.Version = Version
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.broken != nil {
		return nil, h.broken
	}
	if h.cmd == nil {
		if err := h.start(); err != nil {
			h.broken = err
			return nil, err
		}
	}
	type result struct {
		resp *response
		err  error
	}
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	done := make(chan result, 1)
	go func() {
		if _, err := h.in.Write(append(line, '\n')); err != nil {
			done <- result{err: err}
			return
		}
		data, err := readLine(h.out, maxLine)
		if err != nil {
			done <- result{err: err}
			return
		}
		var resp response
		if err := json.Unmarshal(data, &resp); err != nil {
			done <- result{err: fmt.Errorf("unreadable answer: %v", err)}
			return
		}
		done <- result{resp: &resp}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			h.fail(fmt.Errorf("%w: %v%s", ErrHelper, r.err, h.stderrTail()))
			return nil, h.broken
		}
		if r.resp.Error != "" {
			return nil, errors.New(r.resp.Error)
		}
		return r.resp, nil
	case <-ctx.Done():
		h.fail(ctx.Err())
		return nil, ctx.Err()
	case <-timer.C:
		h.fail(fmt.Errorf("%w: %s did not answer within %s (killed; a broken install? reinstall %s)", ErrHelper, h.cmd.Path, timeout, HelperName))
		return nil, h.broken
	}
}

// fail kills the helper and remembers why; h.mu is held.
func (h *Helper) fail(err error) {
	h.broken = err
	if h.cmd != nil && h.cmd.Process != nil {
		h.cmd.Process.Kill()
		h.in.Close()
		go h.cmd.Wait()
	}
	h.cmd = nil // waited for above: Close must not wait for it again
}

func (h *Helper) stderrTail() string {
	if h.stderrw != nil {
		h.stderrw.mu.Lock()
		defer h.stderrw.mu.Unlock()
	}
	s := bytes.TrimSpace(h.stderr.Bytes())
	if len(s) == 0 {
		return ""
	}
	if len(s) > 500 {
		s = s[len(s)-500:]
	}
	return ": " + string(s)
}

// readLine reads one '\n'-terminated line of at most max bytes.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(line)+len(frag) > max {
			return nil, fmt.Errorf("line over %d bytes", max)
		}
		line = append(line, frag...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) == 0:
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("read: %v", err)
		}
	}
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	mu sync.Mutex
	w  io.Writer
	n  int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// Serve answers requests from r on w, one line each, with b, until r
// ends (nil) or cannot be read or w written (the error). It is the
// helper program's main loop.
func Serve(ctx context.Context, r io.Reader, w io.Writer, b Backend) error {
	br := bufio.NewReader(r)
	bw := bufio.NewWriter(w)
	for {
		line, err := readLine(br, maxLine)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		resp := answer(ctx, line, b)
		out, err := json.Marshal(resp)
		if err != nil {
			return err
		}
		if _, err := bw.Write(append(out, '\n')); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// answer handles one request line. A request whose handling panics (a
// bug in the cryptography a hostile bundle reached) is answered with an
// error, so the helper goes on checking the others.
func answer(ctx context.Context, line []byte, b Backend) (resp *response) {
	defer func() {
		if r := recover(); r != nil {
			resp = &response{Error: fmt.Sprintf("%s: internal error: %v", HelperName, r)}
		}
	}()
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return &response{Error: fmt.Sprintf("%s: unreadable request: %v", HelperName, err)}
	}
	if req.Version != Version {
		return &response{Error: fmt.Sprintf("%s speaks protocol %d, skillpm sent %d: install skillpm and %s from the same build", HelperName, Version, req.Version, HelperName)}
	}
	var out response
	var err error
	switch {
	case req.Verify != nil:
		out.Verify, err = b.Verify(ctx, req.Verify)
	case req.Sign != nil:
		out.Sign, err = b.Sign(ctx, req.Sign)
	case req.Describe != nil:
		out.Describe, err = b.Describe(ctx, req.Describe)
	default:
		err = fmt.Errorf("%s: empty request", HelperName)
	}
	if err != nil {
		return &response{Error: err.Error()}
	}
	return &out
}
