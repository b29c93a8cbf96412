// Package regtest runs a real OCI registry (CNCF distribution with in-memory
// storage) on a loopback httptest server, and counts the requests it
// serves (or, with a Counter, the requests a client sends), for
// registry's tests and benchmarks.
package regtest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/distribution/distribution/v3/configuration"
	"github.com/distribution/distribution/v3/registry/handlers"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory" // registers the inmemory driver
	"github.com/sirupsen/logrus"
)

// Server is a loopback registry. Host is its "127.0.0.1:PORT" address, as
// written in references.
type Server struct {
	*httptest.Server
	Host string

	mu    sync.Mutex
	hook  func(w http.ResponseWriter, r *http.Request) bool
	tally tally
}

// Counts are the requests a Server has served, by kind.
type Counts struct {
	Manifests int64 // GET or HEAD /v2/<name>/manifests/<ref>
	Blobs     int64 // GET /v2/<name>/blobs/<digest>
	BlobHeads int64 // HEAD /v2/<name>/blobs/<digest>
	Tags      int64 // GET /v2/<name>/tags/list
	Uploads   int64 // POST, PATCH or PUT under /blobs/uploads/
	Other     int64
	Bytes     int64 // response body bytes: written by a Server, read through a Counter
}

// Total is the number of requests.
func (c Counts) Total() int64 {
	return c.Manifests + c.Blobs + c.BlobHeads + c.Tags + c.Uploads + c.Other
}

// New starts a registry for the life of the test.
func New(tb testing.TB) *Server {
	tb.Helper()
	s := Start()
	tb.Cleanup(s.Close)
	return s
}

// Start starts a registry; the caller closes it.
func Start() *Server {
	logrus.SetOutput(io.Discard)
	config := &configuration.Configuration{
		Storage: configuration.Storage{
			"inmemory": configuration.Parameters{},
			"delete":   configuration.Parameters{"enabled": true},
		},
	}
	config.HTTP.Secret = "regtest"
	config.Log.AccessLog.Disabled = true
	config.Log.Level = "error"
	app := handlers.NewApp(context.Background(), config)
	s := &Server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.tally.add(r)
		s.mu.Lock()
		hook := s.hook
		s.mu.Unlock()
		if hook != nil && hook(w, r) {
			return
		}
		app.ServeHTTP(&countingWriter{ResponseWriter: w, n: &s.tally.bytes}, r)
	}))
	s.Host = strings.TrimPrefix(s.URL, "http://")
	return s
}

// Hook installs h in front of the registry: when h returns true it has
// answered the request itself. nil removes it.
func (s *Server) Hook(h func(w http.ResponseWriter, r *http.Request) bool) {
	s.mu.Lock()
	s.hook = h
	s.mu.Unlock()
}

// Counts returns the requests served so far.
func (s *Server) Counts() Counts { return s.tally.counts() }

// Reset zeroes the counts.
func (s *Server) Reset() { s.tally.reset() }

// Counter counts the requests sent through its transports, and the
// response body bytes read, by the same kinds as a Server counts them:
// for a registry that is not a Server (another process).
type Counter struct{ tally tally }

// Transport returns base (http.DefaultTransport when nil) counting into c.
func (c *Counter) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &countingTransport{base: base, t: &c.tally}
}

// Counts returns the requests sent so far.
func (c *Counter) Counts() Counts { return c.tally.counts() }

// Reset zeroes the counts.
func (c *Counter) Reset() { c.tally.reset() }

type countingTransport struct {
	base http.RoundTripper
	t    *tally
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	t.t.add(r)
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, n: &t.t.bytes}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// tally is Counts, safe for concurrent use.
type tally struct {
	manifests, blobs, blobHeads, tags, uploads, other, bytes atomic.Int64
}

func (t *tally) counts() Counts {
	return Counts{
		Manifests: t.manifests.Load(),
		Blobs:     t.blobs.Load(),
		BlobHeads: t.blobHeads.Load(),
		Tags:      t.tags.Load(),
		Uploads:   t.uploads.Load(),
		Other:     t.other.Load(),
		Bytes:     t.bytes.Load(),
	}
}

func (t *tally) reset() {
	for _, n := range []*atomic.Int64{&t.manifests, &t.blobs, &t.blobHeads, &t.tags, &t.uploads, &t.other, &t.bytes} {
		n.Store(0)
	}
}

func (t *tally) add(r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.Contains(p, "/blobs/uploads"):
		t.uploads.Add(1)
	case strings.Contains(p, "/manifests/"):
		t.manifests.Add(1)
	case strings.Contains(p, "/blobs/") && r.Method == http.MethodHead:
		t.blobHeads.Add(1)
	case strings.Contains(p, "/blobs/"):
		t.blobs.Add(1)
	case strings.HasSuffix(p, "/tags/list"):
		t.tags.Add(1)
	default:
		t.other.Add(1)
	}
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	w.n.Add(int64(n))
	return n, err
}

// Flush lets streamed responses through.
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
