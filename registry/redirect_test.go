package registry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// redirectingRegistry serves a packed skill whose content layer GET is
// redirected to the URL to() returns.
func redirectingRegistry(t *testing.T, tls bool, to func() string) (*httptest.Server, *Package) {
	t.Helper()
	dir := writeSkill(t, t.TempDir(), "pdf", "1.0.0", nil)
	p, err := Pack(bg, dir, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.Contains(r.URL.Path, "/manifests/"):
			w.Header().Set("Content-Type", p.Manifest.MediaType)
			w.Write(p.ManifestJSON)
		case strings.HasSuffix(r.URL.Path, p.ConfigDesc.Digest.String()):
			w.Write(p.ConfigJSON)
		case strings.HasSuffix(r.URL.Path, p.Layer.Digest.String()):
			http.Redirect(w, r, to(), http.StatusTemporaryRedirect)
		}
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv, p
}

// layerServer serves p's content layer at any path, counting requests.
func layerServer(t *testing.T, p *Package, n *atomic.Int64) *httptest.Server {
	t.Helper()
	rc, err := p.OpenLayer()
	if err != nil {
		t.Fatal(err)
	}
	layer, _ := io.ReadAll(rc)
	rc.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write(layer)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestRedirectsStayOnTLSAndOffLoopback: a registry reached over https
// may not redirect a download to plain http, nor may a registry on
// another host send skillpm to this machine's loopback (a local service
// would be asked on the registry's behalf): both are refused with
// ErrInsecure (exit 9) naming the target, and the target is never
// asked. The rules well-known origins follow. Before, both redirects
// were followed.
func TestRedirectsStayOnTLSAndOffLoopback(t *testing.T) {
	t.Run("https to http", func(t *testing.T) {
		var asked atomic.Int64
		var plain *httptest.Server
		srv, p := redirectingRegistry(t, true, func() string { return plain.URL + "/layer" })
		plain = layerServer(t, p, &asked)
		c := NewClient(Options{Transport: srv.Client().Transport})
		ref, _ := ParseReference(strings.TrimPrefix(srv.URL, "https://") + "/org/pdf:1.0.0")
		_, err := c.Pull(bg, ref, filepath.Join(t.TempDir(), "out"), PullOptions{})
		if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), plain.URL) {
			t.Errorf("Pull: %v; want ErrInsecure naming %s", err, plain.URL)
		}
		if asked.Load() != 0 {
			t.Errorf("the plain-http target was asked %d times", asked.Load())
		}
	})
	for _, target := range []string{"127.0.0.1", "0.0.0.0", "[::ffff:0.0.0.0]"} { // all reach this machine
		t.Run("another host to "+target, func(t *testing.T) { anotherHostToLoopback(t, target) })
	}
	t.Run("loopback to loopback", func(t *testing.T) {
		var asked atomic.Int64
		var local *httptest.Server
		srv, p := redirectingRegistry(t, false, func() string { return local.URL + "/layer" })
		local = layerServer(t, p, &asked)
		host := strings.TrimPrefix(srv.URL, "http://")
		c := NewClient(Options{PlainHTTPHosts: []string{host}})
		ref, _ := ParseReference(host + "/org/pdf:1.0.0")
		if _, err := c.Pull(bg, ref, filepath.Join(t.TempDir(), "out"), PullOptions{}); err != nil || asked.Load() != 1 {
			t.Errorf("Pull: %v, target asked %d times; want success through the redirect", err, asked.Load())
		}
	})
}

// anotherHostToLoopback: a registry on another host redirecting a
// download to target, an address of this machine, is refused.
func anotherHostToLoopback(t *testing.T, target string) {
	var asked atomic.Int64
	var local *httptest.Server
	to := func() string { return strings.Replace(local.URL, "127.0.0.1", target, 1) }
	srv, p := redirectingRegistry(t, false, func() string { return to() + "/layer" })
	local = layerServer(t, p, &asked)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	host := "registry.example:" + port
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if strings.HasPrefix(addr, "registry.example:") {
			addr = srv.Listener.Addr().String()
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c := NewClient(Options{Transport: tr, PlainHTTPHosts: []string{host}})
	ref, _ := ParseReference(host + "/org/pdf:1.0.0")
	_, err := c.Pull(bg, ref, filepath.Join(t.TempDir(), "out"), PullOptions{})
	if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), to()) {
		t.Errorf("Pull: %v; want ErrInsecure naming %s", err, to())
	}
	if asked.Load() != 0 {
		t.Errorf("the loopback target was asked %d times", asked.Load())
	}
}
