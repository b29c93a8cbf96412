package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// InProxyPort is the port the launcher listens on, on 127.0.0.1 inside
// the sandbox's own network namespace, for the filtering proxy. The
// namespace is private to one run, so a fixed port is always free.
const InProxyPort = 3128

// Proxy is the filtering HTTP proxy for a tool that declares
// network.outbound hosts: it serves CONNECT (for https and any TCP) and
// absolute-form HTTP requests to the hosts of its allow-list, and refuses
// every other with 403, remembering what it refused. It runs in skillpm
// (outside the sandbox) on a unix socket that the launcher forwards
// 127.0.0.1:InProxyPort to.
type Proxy struct {
	allow []hostRule
	// Dial connects to an allowed host:port. Default: a net.Dialer with a
	// 10 s timeout, resolving through the system resolver.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)

	mu     sync.Mutex
	denied []string
	srv    *http.Server
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

// NewProxy returns a proxy allowing the hosts of a network.outbound list.
func NewProxy(outbound []string) (*Proxy, error) {
	rules, err := parseOutbound(outbound)
	if err != nil {
		return nil, err
	}
	return &Proxy{allow: rules}, nil
}

// Allowed reports whether host:port may be reached.
func (p *Proxy) Allowed(host, port string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	return slices.ContainsFunc(p.allow, func(r hostRule) bool {
		if r.port != "" && r.port != port {
			return false
		}
		if rest, ok := strings.CutPrefix(r.host, "*."); ok {
			return strings.HasSuffix(host, "."+rest)
		}
		return host == r.host
	})
}

// Denied returns the host:port pairs the proxy refused, in order, once
// each.
func (p *Proxy) Denied() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.denied)
}

func (p *Proxy) deny(w http.ResponseWriter, hostport string) {
	p.mu.Lock()
	if !slices.Contains(p.denied, hostport) && len(p.denied) < 100 {
		p.denied = append(p.denied, hostport)
	}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Skillpm-Denied", hostport)
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintf(w, "skillpm sandbox: PERMISSION_DENIED: %s is not in the tool's network.outbound\n", hostport)
}

// Serve serves the proxy on l until Close. It returns nil after Close.
func (p *Proxy) Serve(l net.Listener) error {
	p.mu.Lock()
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
	hostport := net.JoinHostPort(host, port)
	if !p.Allowed(host, port) {
		p.deny(w, hostport)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Te", "Trailer", "Upgrade"} {
		out.Header.Del(h)
	}
	tr := &http.Transport{
		DialContext:           func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dial(ctx, hostport) },
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
	hostport := net.JoinHostPort(host, port)
	if !p.Allowed(host, port) {
		p.deny(w, hostport)
		return
	}
	up, err := p.dial(r.Context(), hostport)
	if err != nil {
		http.Error(w, "skillpm sandbox proxy: "+err.Error(), http.StatusBadGateway)
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
