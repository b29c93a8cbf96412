package toolrun

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/sandbox/netproxy"
)

// childProxy starts ProxyProcess with this test binary as the program
// (TestMain serves the proxy child) on a fresh unix socket.
func childProxy(t *testing.T, outbound []string) (Proxy, string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "proxy.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	px, err := ProxyProcess(func() (string, error) { return exe, nil })(outbound, l)
	if err != nil {
		l.Close()
		return nil, sock, err
	}
	t.Cleanup(func() { px.Close() })
	return px, sock, nil
}

// get sends one absolute-form GET through the proxy on sock.
func get(t *testing.T, sock, url string) *http.Response {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("dial the proxy: %v", err)
	}
	defer c.Close()
	req, _ := http.NewRequest("GET", url, nil)
	if err := req.WriteProxy(c); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		t.Fatalf("read the proxy's answer: %v", err)
	}
	resp.Body.Close()
	return resp
}

// TestProxyProcess: the proxy a child process serves refuses hosts not in
// network.outbound, and Denied, asked after the run, has every refusal
// the child reported, once each, in order; the socket file stays for the
// sandbox to connect to after this process closes its copy.
func TestProxyProcess(t *testing.T) {
	px, sock, err := childProxy(t, []string{"allowed.test:443"})
	if err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{"http://blocked.test/", "http://allowed.test/", "http://blocked.test/again"} {
		if resp := get(t, sock, url); resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s through the child proxy: %s, want 403", url, resp.Status)
		}
	}
	want := []string{"blocked.test:80 (not in network.outbound)", "allowed.test:80 (not in network.outbound)"}
	if got := px.Denied(); !slices.Equal(got, want) {
		t.Errorf("Denied() = %q, want %q", got, want)
	}
	if err := px.Close(); err != nil {
		t.Errorf("Close after Denied: %v (want the child's clean exit)", err)
	}
	if _, err := net.Dial("unix", sock); err == nil {
		t.Error("the proxy still answers after Close")
	}
}

// TestProxyProcessErrors: a child that cannot serve, and a program that
// cannot be found, are errors naming why, not a proxy that silently
// refuses everything.
func TestProxyProcessErrors(t *testing.T) {
	// The child's own error reads as the in-process proxy's does
	// (skillpm-full run): no program path in the tool's error envelope.
	_, want := netproxy.New([]string{"bad host/path"})
	if _, _, err := childProxy(t, []string{"bad host/path"}); err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("bad network.outbound entry: %v, want the in-process proxy's error %v", err, want)
	}
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "p.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	missing := errors.New("skillpm-full is not installed")
	if _, err := ProxyProcess(func() (string, error) { return "", missing })([]string{"a.test"}, l); !errors.Is(err, missing) {
		t.Errorf("no program: %v, want %v", err, missing)
	}
	if _, err := ProxyProcess(func() (string, error) { return "/bin/true", nil })([]string{"a.test"}, l); err == nil || !strings.Contains(err.Error(), "before it was ready") {
		t.Errorf("a program that is no proxy: %v, want 'exited before it was ready'", err)
	}
	// What a program that is no proxy says (an older skillpm-full's
	// "unknown command") is in the error, not on this process's stderr.
	if _, err := ProxyProcess(func() (string, error) { return "/bin/sh", nil })([]string{"a.test"}, l); err == nil || !strings.Contains(err.Error(), "it said: ") || !strings.Contains(err.Error(), sandbox.ProxyChildArg) {
		t.Errorf("a program that is no proxy and says why: %v, want its stderr (naming %s) in the error", err, sandbox.ProxyChildArg)
	}
}

// TestProxyProcessLongRefusal: a refusal whose report is longer than a
// line the parent reads at once (a CONNECT to a 100 KB host name) does not
// stall the child: later refusals are still answered at once, and listed.
func TestProxyProcessLongRefusal(t *testing.T) {
	px, sock, err := childProxy(t, []string{"allowed.test:443"})
	if err != nil {
		t.Fatal(err)
	}
	connect := func(host string) int {
		c, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatalf("dial the proxy: %v", err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %[1]s\r\n\r\n", host); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("CONNECT %.40s...: no answer from the proxy: %v", host, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	long := func(c string) string { return strings.Repeat(c, 100<<10) + ".test:443" }
	for _, host := range []string{long("a"), long("b"), "blocked.test:443"} {
		if code := connect(host); code != http.StatusForbidden {
			t.Errorf("CONNECT %.40s...: %d, want 403", host, code)
		}
	}
	got := px.Denied()
	if !slices.Contains(got, "blocked.test:443 (not in network.outbound)") {
		t.Errorf("Denied() = %.200q, want it to list blocked.test:443", got)
	}
	// The long names are recorded, clipped: a refusal names the host, it
	// does not carry 100 KB into the run's error.
	if len(got) != 3 || !strings.HasPrefix(got[0], "aaaa") || !strings.HasPrefix(got[1], "bbbb") {
		t.Fatalf("Denied() = %.200q, want the two long names first", got)
	}
	for _, d := range got[:2] {
		if len(d) > 400 || !strings.HasSuffix(d, "… (not in network.outbound)") {
			t.Errorf("a refusal of a 100 KB name is recorded as %d bytes ending %q; want it clipped", len(d), d[max(0, len(d)-40):])
		}
	}
}
