//go:build linux

package toolrun

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/sandbox/netproxy"
)

// TestSandboxProxyAllowList runs handlers of a tool that declares
// network.outbound: [allowed.test, rebound.test] against a loopback
// server that the proxy reaches when it connects to allowed.test's
// (public, injected) address: the allowed host answers through the
// proxy, another host is refused with PERMISSION_DENIED naming it,
// rebound.test, whose name resolves to 127.0.0.1 (DNS rebinding), is
// refused naming the address, and a direct connection to the server's
// port is refused by the sandbox.
func TestSandboxProxyAllowList(t *testing.T) {
	needInterp(t, "python3")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, "hello from %s", r.Host)
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	const public = "203.0.113.7" // what allowed.test resolves to
	resolve := func(ctx context.Context, host string) ([]netip.Addr, error) {
		switch host {
		case "allowed.test":
			return []netip.Addr{netip.MustParseAddr(public)}, nil
		case "rebound.test":
			return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, fmt.Errorf("no such host %s", host)
	}
	var dialed []string
	var mu sync.Mutex
	dial := func(ctx context.Context, network, hostport string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, hostport)
		mu.Unlock()
		if host, _, _ := net.SplitHostPort(hostport); host != public {
			return nil, fmt.Errorf("test dials only %s, not %s", public, hostport)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	perms := sandbox.Permissions{Declared: true, Outbound: []string{"allowed.test", "rebound.test"}}
	fetch := "import os, urllib.request\ndef handler(a):\n    return {'body': urllib.request.urlopen(a['url'], timeout=10).read().decode(), 'proxy': os.environ.get('HTTP_PROXY')}\n"
	tunnel := "import http.client\ndef handler(a):\n    c = http.client.HTTPConnection('127.0.0.1', 3128, timeout=10)\n    c.set_tunnel(a['host'], 80)\n    c.request('GET', '/')\n    return {'body': c.getresponse().read().decode()}\n"
	direct := fmt.Sprintf("import socket\ndef handler(a):\n    socket.create_connection(('127.0.0.1', %s), timeout=3).close()\n    return {}\n", port)

	run := func(body, input string) (*Result, error) {
		opts, _ := confined(t, sandbox.Default)
		opts.Sandbox.Proxy = func(outbound []string, l net.Listener) (Proxy, error) {
			px, err := netproxy.New(outbound)
			if err != nil {
				return nil, err
			}
			px.Dial, px.Resolve = dial, resolve
			go px.Serve(l)
			return px, nil
		}
		return runHostile(t, "scripts/h.py", body, perms, opts, input)
	}

	res, err := run(fetch, `{"url":"http://allowed.test/x"}`)
	if err != nil {
		t.Fatalf("allowed host: %v\nstderr: %s", err, res.Stderr)
	}
	if out := string(res.Output); !strings.Contains(out, "hello from allowed.test") || !strings.Contains(out, "127.0.0.1:3128") {
		t.Fatalf("allowed host: %s; want the server's answer through the proxy", out)
	}
	res, err = run(tunnel, `{"host":"allowed.test"}`)
	if err != nil || !strings.Contains(string(res.Output), "hello from allowed.test") {
		t.Fatalf("CONNECT to the allowed host: %v, %s\nstderr: %s", err, res.Output, res.Stderr)
	}
	before := hits.Load()

	for _, in := range []string{`{"url":"http://blocked.test/"}`, `{"url":"http://127.0.0.1:` + port + `/"}`} {
		res, err = run(fetch, in)
		wantDenied(t, res, err, "fetch "+in)
		if !strings.Contains(string(res.Output), "not in network.outbound") {
			t.Fatalf("%s: %s; want the refused host named", in, res.Output)
		}
	}
	if !strings.Contains(string(res.Output), "127.0.0.1:"+port) {
		t.Fatalf("%s; want 127.0.0.1:%s named", res.Output, port)
	}
	res, err = run(tunnel, `{"host":"blocked.test"}`)
	wantDenied(t, res, err, "CONNECT blocked.test")
	if !strings.Contains(string(res.Output), "blocked.test:80") {
		t.Fatalf("CONNECT blocked.test: %s; want it named", res.Output)
	}
	mu.Lock()
	dialed = nil
	mu.Unlock()
	for _, rb := range []struct{ body, in string }{{fetch, `{"url":"http://rebound.test:` + port + `/"}`}, {tunnel, `{"host":"rebound.test"}`}} {
		res, err = run(rb.body, rb.in)
		wantDenied(t, res, err, "rebound.test "+rb.in)
		if out := string(res.Output); !strings.Contains(out, "rebound.test") || !strings.Contains(out, "resolves to 127.0.0.1, a loopback address") {
			t.Fatalf("rebound.test %s: %s; want the name and the address it led to", rb.in, out)
		}
	}
	if len(dialed) != 0 {
		t.Fatalf("the proxy connected to %v for a rebound name", dialed)
	}
	res, err = run(direct, "")
	wantDenied(t, res, err, "direct connection")
	if hits.Load() != before {
		t.Fatalf("the server was reached %d times by refused requests", hits.Load()-before)
	}
}
