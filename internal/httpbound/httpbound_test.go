package httpbound

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawServer accepts connections and hands each to serve, for servers
// that misbehave below HTTP.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// Read the request head, then misbehave.
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				serve(c)
				<-done
			}()
		}
	}()
	return ln.Addr().String()
}

// drip writes s one byte at a time, every d, until the connection fails.
func drip(c net.Conn, s string, d time.Duration) {
	for i := 0; ; i++ {
		b := byte('x')
		if i < len(s) {
			b = s[i]
		}
		if _, err := c.Write([]byte{b}); err != nil {
			return
		}
		time.Sleep(d)
	}
}

func client(t Timeouts) *http.Client {
	return &http.Client{Transport: Wrap(NewTransport(t), t)}
}

func wantTimeout(t *testing.T, err error, phase Phase, host string) {
	t.Helper()
	var te *TimeoutError
	if !errors.As(err, &te) || te.Phase != phase {
		t.Fatalf("err = %v; want a %s *TimeoutError", err, phase)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("err = %v is not a net.Error timeout", err)
	}
	if !strings.Contains(err.Error(), host) {
		t.Errorf("err = %q does not name the host %s", err, host)
	}
}

// TestSilentServer: a server that accepts and never answers fails the
// request after ResponseHeader instead of hanging.
func TestSilentServer(t *testing.T) {
	addr := rawServer(t, func(net.Conn) {})
	_, err := client(Timeouts{ResponseHeader: 200 * time.Millisecond}).Get("http://" + addr + "/v2/")
	wantTimeout(t, err, PhaseResponseHeader, addr)
}

// TestDrippingHeaders: headers arriving a byte at a time are bounded by
// ResponseHeader as a whole, not per byte.
func TestDrippingHeaders(t *testing.T) {
	addr := rawServer(t, func(c net.Conn) {
		drip(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n", 20*time.Millisecond)
	})
	_, err := client(Timeouts{ResponseHeader: 300 * time.Millisecond}).Get("http://" + addr + "/v2/")
	wantTimeout(t, err, PhaseResponseHeader, addr)
}

// TestDrippingBody: a body that never goes quiet but delivers a byte
// every few milliseconds is a stall.
func TestDrippingBody(t *testing.T) {
	addr := rawServer(t, func(c net.Conn) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
		drip(c, "", 20*time.Millisecond)
	})
	resp, err := client(Timeouts{Stall: 300 * time.Millisecond}).Get("http://" + addr + "/blob")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	wantTimeout(t, err, PhaseStall, addr)
	if n >= 1000000 {
		t.Errorf("read %d bytes; want the read cut short", n)
	}
}

// TestSlowReaderNotBlamed: a reader that takes its time between reads
// is not a stalled server.
func TestSlowReaderNotBlamed(t *testing.T) {
	body := strings.Repeat("y", 4096)
	addr := rawServer(t, func(c net.Conn) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 4096\r\n\r\n"+body)
	})
	resp, err := client(Timeouts{Stall: 100 * time.Millisecond}).Get("http://" + addr + "/blob")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 512)
	var got int
	for {
		time.Sleep(40 * time.Millisecond) // busy elsewhere
		n, err := resp.Body.Read(buf)
		got += n
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", got, err)
		}
	}
	if got != len(body) {
		t.Errorf("read %d bytes; want %d", got, len(body))
	}
}

// TestConnectTimeout: a timeout from the dial is reported as one.
func TestConnectTimeout(t *testing.T) {
	dialTimeout := &net.OpError{Op: "dial", Net: "tcp", Err: &TimeoutError{}}
	base := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, dialTimeout })
	c := &http.Client{Transport: Wrap(base, Timeouts{Connect: time.Second})}
	_, err := c.Get("http://192.0.2.1:5000/v2/")
	wantTimeout(t, err, PhaseConnect, "192.0.2.1:5000")
}

// TestNewTransportBoundsConnect: the transport's dials and handshakes
// carry the connect timeout.
func TestNewTransportBoundsConnect(t *testing.T) {
	tr := NewTransport(Timeouts{Connect: 3 * time.Second})
	if tr.TLSHandshakeTimeout != 3*time.Second || tr.DialContext == nil {
		t.Errorf("TLSHandshakeTimeout = %s, DialContext set = %v; want 3s and set", tr.TLSHandshakeTimeout, tr.DialContext != nil)
	}
}

// TestFastServer: timeouts leave a well-behaved exchange alone.
func TestFastServer(t *testing.T) {
	addr := rawServer(t, func(c net.Conn) {
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
	})
	resp, err := client(Timeouts{ResponseHeader: time.Second, Stall: time.Second}).Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(b) != "hello" {
		t.Errorf("body = %q, %v; want hello", b, err)
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestLimitReader(t *testing.T) {
	tests := []struct {
		in      string
		n       int64
		want    string
		wantErr bool
	}{
		{"hello", 5, "hello", false},
		{"hello", 10, "hello", false},
		{"hello!", 5, "hello", true},
		{"", 0, "", false},
		{"x", 0, "", true},
	}
	for _, tc := range tests {
		got, err := io.ReadAll(LimitReader(strings.NewReader(tc.in), tc.n))
		var tl *TooLongError
		if string(got) != tc.want || errors.As(err, &tl) != tc.wantErr {
			t.Errorf("LimitReader(%q, %d) = %q, %v; want %q, error %v", tc.in, tc.n, got, err, tc.want, tc.wantErr)
		}
	}
}

// TestLimitReaderEndless: an endless source is cut at the limit.
func TestLimitReaderEndless(t *testing.T) {
	src := &countingReader{}
	_, err := io.Copy(io.Discard, LimitReader(src, 1<<20))
	var tl *TooLongError
	if !errors.As(err, &tl) {
		t.Fatalf("err = %v; want *TooLongError", err)
	}
	if src.n > 1<<20+1 {
		t.Errorf("read %d bytes of the source; want at most %d", src.n, 1<<20+1)
	}
}

type countingReader struct{ n int64 }

func (r *countingReader) Read(p []byte) (int, error) {
	r.n += int64(len(p))
	return len(p), nil
}

// TestStallWhileUploading: a server that reads a request's head but not
// its body blocks the client's write once the socket buffers fill: the
// stall timeout ends that too (less than StallBytes taken in a period),
// instead of hanging an upload for ever. Before, neither the stall nor
// the response-header timeout (which starts once the request is
// written) ran during the write.
func TestStallWhileUploading(t *testing.T) {
	addr := rawServer(t, func(c net.Conn) {}) // reads the head, then nothing
	tm := Timeouts{ResponseHeader: 200 * time.Millisecond, Stall: 200 * time.Millisecond}
	body := strings.NewReader(strings.Repeat("x", 64<<20)) // far more than socket buffers hold
	req, err := http.NewRequest(http.MethodPut, "http://"+addr+"/upload", body)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		resp, err := client(tm).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		wantTimeout(t, err, PhaseStall, addr)
	case <-time.After(20 * time.Second):
		t.Fatal("the upload to a server that reads nothing never ended")
	}
}
