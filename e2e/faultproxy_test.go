package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/skillpm/skillpm/registry"
)

// faultProxy is a reverse proxy in front of a registry that injects
// faults: error statuses, connection resets, delays, and the registry
// going away after a number of requests.
type faultProxy struct {
	failEvery, resetEvery, downAfter int64
	delay                            time.Duration

	n, failed, resets, uploads atomic.Int64
	srv                        *http.Server
	ln                         net.Listener
}

// ServeHTTP counts the request, then fails, resets, delays or forwards it.
func (p *faultProxy) serve(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := p.n.Add(1)
		if p.delay > 0 {
			time.Sleep(p.delay)
		}
		switch {
		case p.downAfter > 0 && n > p.downAfter, p.resetEvery > 0 && n%p.resetEvery == 0:
			p.resets.Add(1)
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					if tc, ok := conn.(*net.TCPConn); ok {
						tc.SetLinger(0) // RST, not FIN
					}
					conn.Close()
					return
				}
			}
			panic(http.ErrAbortHandler)
		case p.failEvery > 0 && n%p.failEvery == 0:
			p.failed.Add(1)
			http.Error(w, `{"errors":[{"code":"UNAVAILABLE","message":"injected fault"}]}`, http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodPut || r.Method == http.MethodPost || r.Method == http.MethodPatch {
			p.uploads.Add(1)
		}
		next.ServeHTTP(w, r)
	})
}

// cmdFaultProxy starts or stops a fault-injecting proxy in front of a
// registry, or prints what it has seen. 'start' sets $NAME to the
// proxy's host:port; the registry builds its upload URLs from the Host
// header, which the proxy keeps, so uploads go through it too.
//
//	faultproxy start NAME --to HOST:PORT [--fail-every N] [--reset-every M] [--delay D] [--down-after K]
//	faultproxy stats NAME    # requests=… failed=… resets=… uploads=… on stdout
//	faultproxy wait NAME     # until a request has arrived (at most 60s)
//	faultproxy stop NAME
func cmdFaultProxy(ts *testscript.TestScript, neg bool, args []string) {
	const usage = "usage: faultproxy start NAME --to HOST:PORT [--fail-every N] [--reset-every M] [--delay D] [--down-after K] | faultproxy stats NAME | faultproxy wait NAME | faultproxy stop NAME"
	if neg {
		ts.Fatalf("faultproxy does not support '!'")
	}
	if len(args) < 2 || !envName.MatchString(args[1]) {
		ts.Fatalf("%s", usage)
	}
	key := faultProxiesKey{}
	proxies, _ := ts.Value(key).(*sync.Map)
	if proxies == nil {
		ts.Fatalf("faultproxy: no script environment (Setup did not run)")
	}
	name := args[1]
	switch args[0] {
	case "start":
		p, to := &faultProxy{}, ""
		rest := args[2:]
		for len(rest) >= 2 {
			v := rest[1]
			var err error
			switch rest[0] {
			case "--to":
				to = v
			case "--fail-every":
				p.failEvery, err = strconv.ParseInt(v, 10, 64)
			case "--reset-every":
				p.resetEvery, err = strconv.ParseInt(v, 10, 64)
			case "--down-after":
				p.downAfter, err = strconv.ParseInt(v, 10, 64)
			case "--delay":
				p.delay, err = time.ParseDuration(v)
			default:
				ts.Fatalf("%s", usage)
			}
			if err != nil {
				ts.Fatalf("faultproxy: %s %q: %v", rest[0], v, err)
			}
			rest = rest[2:]
		}
		if len(rest) != 0 || to == "" {
			ts.Fatalf("%s", usage)
		}
		if _, ok := proxies.Load(name); ok {
			ts.Fatalf("faultproxy %s is already running", name)
		}
		target, err := url.Parse("http://" + to)
		ts.Check(err)
		rp := httputil.NewSingleHostReverseProxy(target) // keeps the Host header
		rp.ErrorLog = nil
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		ts.Check(err)
		p.ln, p.srv = ln, &http.Server{Handler: p.serve(rp), ReadHeaderTimeout: 10 * time.Second}
		go p.srv.Serve(ln)
		proxies.Store(name, p)
		ts.Defer(func() { p.srv.Close() })
		ts.Setenv(name, ln.Addr().String())
	case "stats":
		v, ok := proxies.Load(name)
		if !ok || len(args) != 2 {
			ts.Fatalf("faultproxy %s was not started by this script", name)
		}
		p := v.(*faultProxy)
		fmt.Fprintf(ts.Stdout(), "requests=%d failed=%d resets=%d uploads=%d\n", p.n.Load(), p.failed.Load(), p.resets.Load(), p.uploads.Load())
	case "wait":
		// A script that signals a client mid-request waits for the
		// request, not for a fixed time that a loaded machine outlasts.
		v, ok := proxies.Load(name)
		if !ok || len(args) != 2 {
			ts.Fatalf("faultproxy %s was not started by this script", name)
		}
		p := v.(*faultProxy)
		deadline := time.Now().Add(60 * time.Second)
		for p.n.Load() == 0 {
			if time.Now().After(deadline) {
				ts.Fatalf("faultproxy %s: no request within 60s", name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	case "stop":
		v, ok := proxies.LoadAndDelete(name)
		if !ok || len(args) != 2 {
			ts.Fatalf("faultproxy %s was not started by this script", name)
		}
		v.(*faultProxy).srv.Close()
	default:
		ts.Fatalf("%s", usage)
	}
}

type faultProxiesKey struct{}

// cmdAttach pushes a referrer (a stand-in signature bundle by default)
// onto the manifest REF names, as signing tools do, for scripts that
// check that referrers travel with a skill.
//
//	attach REF[:TAG|@sha256:…] [ARTIFACT_TYPE]
func cmdAttach(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: attach REF[:TAG|@sha256:...] [ARTIFACT_TYPE]")
	}
	ref, err := registry.ParseReference(args[0])
	ts.Check(err)
	at := "application/vnd.dev.sigstore.bundle.v0.3+json"
	if len(args) == 2 {
		at = args[1]
	}
	c := registry.NewClient(registry.Options{PlainHTTP: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if ref.Digest == "" {
		res, err := c.Resolve(ctx, ref)
		ts.Check(err)
		ref = ref.WithDigest(res.Ref.Digest)
	}
	d, err := c.Attach(ctx, ref, registry.Referrer{ArtifactType: at, Blob: []byte(`{"mediaType":"` + at + `","e2e":"` + strings.ReplaceAll(args[0], `"`, "") + `"}`)})
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), d.Digest)
}
