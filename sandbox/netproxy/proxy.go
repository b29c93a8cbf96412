package netproxy

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Proxy is the filtering HTTP proxy for a tool that declares
// network.outbound hosts: it serves CONNECT (for https and any TCP) and
// absolute-form HTTP requests to the hosts of its allow-list, and refuses
// every other with 403, remembering what it refused. It runs in skillpm
// (outside the sandbox) on a unix socket that the launcher forwards
// 127.0.0.1:sandbox.InProxyPort to.
type Proxy struct {
	allow []hostRule
	// Resolve looks up the addresses of an allowed host name; the proxy
	// checks them (see resolve) and connects to one of them. Default: the
	// system resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
	// Dial connects to a checked address, IP:port. Default: a net.Dialer
	// with a 10 s timeout.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// OnDeny, if set, is called with each new entry of Denied as it is
	// added, before the refused client gets its answer.
	OnDeny func(entry string)

	mu     sync.Mutex
	denied []string
	srv    *http.Server
	closed bool // Close was called, maybe before Serve
}

// hostRule is one network.outbound entry: a host name or IP, a
// "*.example.com" wildcard (any subdomain, not the domain itself), and an
// optional port.
type hostRule struct {
	host string // lower case; "*.x" for wildcards
	port string // "" for any
}

// parseOutbound checks network.outbound entries ("host", "host:port",
// "*.domain", "[v6]:port") and returns the proxy's rules.
func parseOutbound(hosts []string) ([]hostRule, error) {
	var rules []hostRule
	for _, h := range hosts {
		h = strings.ToLower(strings.TrimSpace(h))
		host, port := h, ""
		if hh, pp, err := net.SplitHostPort(h); err == nil {
			host, port = hh, pp
			if n, err := strconv.Atoi(pp); err != nil || n < 1 || n > 65535 {
				return nil, fmt.Errorf("network.outbound %q: bad port", h)
			}
		}
		host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
		if host == "" || strings.ContainsAny(host, "/@ ") || strings.Contains(strings.TrimPrefix(host, "*."), "*") {
			return nil, fmt.Errorf("network.outbound %q: want a host name, *.domain or an IP address, with an optional :port", h)
		}
		rules = append(rules, hostRule{host: host, port: port})
	}
	return rules, nil
}

// New returns a proxy allowing the hosts of a network.outbound list.
func New(outbound []string) (*Proxy, error) {
	rules, err := parseOutbound(outbound)
	if err != nil {
		return nil, err
	}
	return &Proxy{allow: rules}, nil
}

// Allowed reports whether host:port is in the allow-list (by name; see
// resolve for where a name may lead).
func (p *Proxy) Allowed(host, port string) bool {
	_, ok := p.rule(host, port)
	return ok
}

// rule returns the allow-list entry that grants host:port.
func (p *Proxy) rule(host, port string) (hostRule, bool) {
	host = canonHost(host)
	i := slices.IndexFunc(p.allow, func(r hostRule) bool {
		if r.port != "" && r.port != port {
			return false
		}
		if rest, ok := strings.CutPrefix(r.host, "*."); ok {
			return strings.HasSuffix(host, "."+rest)
		}
		return host == r.host
	})
	if i < 0 {
		return hostRule{}, false
	}
	return p.allow[i], true
}

// canonHost lower-cases a host, drops brackets and a trailing dot, and
// writes an IP address in its canonical form.
func canonHost(host string) string {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	return host
}

// maxDeniedHost bounds the host:port a refusal records: a DNS name has at
// most 253 bytes.
const maxDeniedHost = 300

// Denied returns what the proxy refused, in order, once each: host:port
// and why ("not in network.outbound", or where an allowed name led).
func (p *Proxy) Denied() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.denied)
}

// deny refuses hostport with 403; why is "" for a host not in the
// allow-list.
func (p *Proxy) deny(w http.ResponseWriter, hostport, why string) {
	if len(hostport) > maxDeniedHost {
		// A name no DNS can hold, sent to make Denied (and the error
		// a run reports) huge: enough of it to recognise.
		hostport = strings.ToValidUTF8(hostport[:maxDeniedHost], "") + "…"
	}
	entry := hostport + " (not in network.outbound)"
	msg := hostport + " is not in the tool's network.outbound"
	if why != "" {
		entry = hostport + " (" + why + ")"
		msg = hostport + ": " + why
	}
	p.mu.Lock()
	added := !slices.Contains(p.denied, entry) && len(p.denied) < 100
	if added {
		p.denied = append(p.denied, entry)
	}
	p.mu.Unlock()
	if added && p.OnDeny != nil {
		p.OnDeny(entry)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Skillpm-Denied", hostport)
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "skillpm sandbox: PERMISSION_DENIED: %s\n", msg)
}

// open checks host:port against the allow-list and where the name
// leads, and connects to the checked address. It answers the request
// itself (403, 502) and returns nil when it does not connect.
func (p *Proxy) open(w http.ResponseWriter, r *http.Request, host, port string) net.Conn {
	hostport := net.JoinHostPort(host, port)
	rule, ok := p.rule(host, port)
	if !ok {
		p.deny(w, hostport, "")
		return nil
	}
	addrs, err := p.resolve(r.Context(), canonHost(host), rule)
	var ref *refusal
	if errors.As(err, &ref) {
		p.deny(w, hostport, ref.reason)
		return nil
	}
	if err != nil {
		http.Error(w, "skillpm sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return nil
	}
	c, err := p.dialChecked(r.Context(), addrs, port)
	if err != nil {
		http.Error(w, "skillpm sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return nil
	}
	return c
}

// Serve serves the proxy on l until Close. It returns nil after Close,
// and at once, closing l, if Close came first.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.Close()
		return nil
	}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	srv := p.srv
	p.mu.Unlock()
	if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Close stops the proxy and every connection through it.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	srv := p.srv
	p.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close() // hijacked tunnels end when the sandbox dies with the run
}

func (p *Proxy) dial(ctx context.Context, addr string) (net.Conn, error) {
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", addr)
	}
	d := net.Dialer{Timeout: 10 * time.Second}
	return d.DialContext(ctx, "tcp", addr)
}

// ServeHTTP handles one proxy request.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	if r.URL.Scheme != "http" || r.URL.Host == "" {
		http.Error(w, "skillpm sandbox proxy: want CONNECT or an absolute http:// URL", http.StatusBadRequest)
		return
	}
	host, port := r.URL.Hostname(), r.URL.Port()
	if port == "" {
		port = "80"
	}
	up := p.open(w, r, host, port)
	if up == nil {
		return
	}
	defer up.Close() // the transport's own close makes this a no-op
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	var once sync.Once
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			c := net.Conn(nil)
			once.Do(func() { c = up })
			if c == nil {
				return nil, errors.New("one connection per request")
			}
			return c, nil
		},
		ResponseHeaderTimeout: 60 * time.Second,
		DisableKeepAlives:     true,
	}
	defer tr.CloseIdleConnections()
	resp, err := tr.RoundTrip(out)
	if err != nil {
		http.Error(w, "skillpm sandbox proxy: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

// connect tunnels a CONNECT request to an allowed host.
func (p *Proxy) connect(w http.ResponseWriter, r *http.Request) {
	host, port, err := net.SplitHostPort(r.Host)
	if err != nil {
		http.Error(w, "skillpm sandbox proxy: CONNECT wants host:port", http.StatusBadRequest)
		return
	}
	up := p.open(w, r, host, port)
	if up == nil {
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "skillpm sandbox proxy: cannot tunnel", http.StatusInternalServerError)
		return
	}
	down, buf, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n")
	go splice(up, down, buf.Reader)
}

// splice copies both ways until either side closes, then closes both.
func splice(up, down net.Conn, pending *bufio.Reader) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, pending); done <- struct{}{} }()
	go func() { io.Copy(down, up); done <- struct{}{} }()
	<-done
	up.Close()
	down.Close()
	<-done
}
