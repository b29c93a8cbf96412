package netproxy

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestProxyAllowed(t *testing.T) {
	p, err := New([]string{"API.example.com", "files.example.org:443", "*.cdn.test", "10.0.0.1", "[::1]:8080"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		host, port string
		want       bool
	}{
		{"api.example.com", "443", true},
		{"api.example.com.", "80", true},
		{"API.EXAMPLE.COM", "8443", true},
		{"evil.api.example.com", "443", false},
		{"example.com", "443", false},
		{"files.example.org", "443", true},
		{"files.example.org", "80", false},
		{"a.cdn.test", "443", true},
		{"a.b.cdn.test", "443", true},
		{"cdn.test", "443", false},
		{"evilcdn.test", "443", false},
		{"10.0.0.1", "22", true},
		{"10.0.0.2", "22", false},
		{"::1", "8080", true},
		{"[::1]", "8080", true},
		{"::1", "80", false},
	} {
		if got := p.Allowed(tc.host, tc.port); got != tc.want {
			t.Errorf("Allowed(%q, %q) = %v; want %v", tc.host, tc.port, got, tc.want)
		}
	}
	for _, bad := range []string{"", "a/b", "x:0", "x:99999", "*", "a.*.b", "user@host"} {
		if _, err := New([]string{bad}); err == nil {
			t.Errorf("New(%q) accepted it", bad)
		}
	}
}

// TestProxyResolveRebinding checks where an allowed entry may lead: a
// name only to public addresses, an IP literal and localhost (named as
// such) to themselves.
func TestProxyResolveRebinding(t *testing.T) {
	answers := map[string][]string{
		"public.test":    {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"loop.test":      {"127.0.0.1"},
		"private.test":   {"10.1.2.3"},
		"meta.test":      {"169.254.169.254"},
		"zero.test":      {"0.0.0.0"},
		"multi.test":     {"224.0.0.251"},
		"v6loop.test":    {"::1"},
		"ula.test":       {"fd00::1"},
		"mapped.test":    {"::ffff:127.0.0.1"},
		"mixed.test":     {"93.184.215.14", "192.168.1.1"},
		"cgnat.test":     {"100.64.0.1"},
		"localhost":      {"127.0.0.1", "::1"},
		"evil.localhost": {"127.0.0.1"},
	}
	var asked []string
	p, err := New([]string{"public.test", "loop.test", "private.test", "meta.test", "zero.test", "multi.test",
		"v6loop.test", "ula.test", "mapped.test", "mixed.test", "cgnat.test", "localhost", "127.0.0.1:8080", "*.localhost"})
	if err != nil {
		t.Fatal(err)
	}
	p.Resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		asked = append(asked, host)
		var out []netip.Addr
		for _, s := range answers[host] {
			out = append(out, netip.MustParseAddr(s))
		}
		return out, nil
	}
	for _, tc := range []struct {
		host, port string
		want       string // first address, or "" for a refusal
		why        string
	}{
		{"public.test", "443", "93.184.215.14", ""},
		{"loop.test", "80", "", "a loopback address"},
		{"private.test", "80", "", "a private address"},
		{"meta.test", "80", "", "a link-local address"},
		{"zero.test", "80", "", "an unspecified address"},
		{"multi.test", "80", "", "a multicast address"},
		{"v6loop.test", "80", "", "a loopback address"},
		{"ula.test", "80", "", "a private address"},
		{"mapped.test", "80", "", "a loopback address"},
		{"mixed.test", "80", "", "192.168.1.1, a private address"},
		{"cgnat.test", "80", "", "a reserved address"},
		{"localhost", "80", "127.0.0.1", ""},
		{"evil.localhost", "80", "", "a loopback address"},
		{"127.0.0.1", "8080", "127.0.0.1", ""},
	} {
		rule, ok := p.rule(tc.host, tc.port)
		if !ok {
			t.Fatalf("%s:%s not allowed", tc.host, tc.port)
		}
		addrs, err := p.resolve(context.Background(), canonHost(tc.host), rule)
		var ref *refusal
		switch {
		case tc.want != "" && (err != nil || addrs[0].String() != tc.want):
			t.Errorf("%s: %v, %v; want %s", tc.host, addrs, err, tc.want)
		case tc.want == "" && (!errors.As(err, &ref) || !strings.Contains(ref.reason, tc.why) || !strings.Contains(ref.reason, tc.host)):
			t.Errorf("%s: %v, %v; want a refusal naming it and %q", tc.host, addrs, err, tc.why)
		}
	}
	if slices.Contains(asked, "127.0.0.1") {
		t.Error("an IP literal was resolved")
	}
}

// TestProxyRefusesReboundName drives the proxy over HTTP: a CONNECT to
// an allowed name that resolves to loopback gets 403 naming the address,
// the refusal is listed, and nothing is dialled.
func TestProxyRefusesReboundName(t *testing.T) {
	p, err := New([]string{"rebound.test"})
	if err != nil {
		t.Fatal(err)
	}
	p.Resolve = func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	p.Dial = func(context.Context, string, string) (net.Conn, error) {
		t.Error("the proxy dialled a rebound name")
		return nil, errors.New("no")
	}
	for _, req := range []*http.Request{
		httptest.NewRequest(http.MethodConnect, "http://rebound.test:443", nil),
		httptest.NewRequest(http.MethodGet, "http://rebound.test/x", nil),
	} {
		if req.Method == http.MethodConnect {
			req.Host = "rebound.test:443"
		}
		w := httptest.NewRecorder()
		p.ServeHTTP(w, req)
		if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "resolves to 127.0.0.1, a loopback address") {
			t.Errorf("%s: %d %q; want 403 naming the address", req.Method, w.Code, w.Body)
		}
	}
	if d := p.Denied(); len(d) != 2 || !strings.HasPrefix(d[0], "rebound.test:443 (rebound.test resolves to 127.0.0.1") {
		t.Errorf("Denied() = %q", d)
	}
}

// TestProxyCloseBeforeServe: Close stops the proxy even when Serve has not
// started yet (Start serves from a goroutine, and a run can end first):
// Serve then returns at once, and the listener is closed.
func TestProxyCloseBeforeServe(t *testing.T) {
	p, err := New([]string{"a.test"})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := p.Close(); err != nil {
		t.Fatalf("Close before Serve: %v", err)
	}
	served := make(chan error, 1)
	go func() { served <- p.Serve(l) }()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("Serve after Close = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve after Close still serving after 5s")
	}
	if c, err := net.Dial("tcp", l.Addr().String()); err == nil {
		c.Close()
		t.Error("the listener still accepts after Close")
	}
}
