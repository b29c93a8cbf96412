// Package regtest runs a real OCI registry (CNCF distribution with in-memory
// storage) on a loopback httptest server, and counts the requests it
// serves, for registry's tests and benchmarks.
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

	mu     sync.Mutex
	hook   func(w http.ResponseWriter, r *http.Request) bool
	counts Counts
}

// Counts are the requests a Server has served, by kind.
type Counts struct {
	Manifests int64 // GET or HEAD /v2/<name>/manifests/<ref>
	Blobs     int64 // GET /v2/<name>/blobs/<digest>
	BlobHeads int64 // HEAD /v2/<name>/blobs/<digest>
	Tags      int64 // GET /v2/<name>/tags/list
	Uploads   int64 // POST, PATCH or PUT under /blobs/uploads/
	Other     int64
	Bytes     int64 // response body bytes written
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
		s.count(r)
		s.mu.Lock()
		hook := s.hook
		s.mu.Unlock()
		if hook != nil && hook(w, r) {
			return
		}
		app.ServeHTTP(&countingWriter{ResponseWriter: w, n: &s.counts.Bytes}, r)
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
func (s *Server) Counts() Counts {
	return Counts{
		Manifests: atomic.LoadInt64(&s.counts.Manifests),
		Blobs:     atomic.LoadInt64(&s.counts.Blobs),
		BlobHeads: atomic.LoadInt64(&s.counts.BlobHeads),
		Tags:      atomic.LoadInt64(&s.counts.Tags),
		Uploads:   atomic.LoadInt64(&s.counts.Uploads),
		Other:     atomic.LoadInt64(&s.counts.Other),
		Bytes:     atomic.LoadInt64(&s.counts.Bytes),
	}
}

// Reset zeroes the counts.
func (s *Server) Reset() {
	for _, p := range []*int64{&s.counts.Manifests, &s.counts.Blobs, &s.counts.BlobHeads, &s.counts.Tags, &s.counts.Uploads, &s.counts.Other, &s.counts.Bytes} {
		atomic.StoreInt64(p, 0)
	}
}

func (s *Server) count(r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.Contains(p, "/blobs/uploads"):
		atomic.AddInt64(&s.counts.Uploads, 1)
	case strings.Contains(p, "/manifests/"):
		atomic.AddInt64(&s.counts.Manifests, 1)
	case strings.Contains(p, "/blobs/") && r.Method == http.MethodHead:
		atomic.AddInt64(&s.counts.BlobHeads, 1)
	case strings.Contains(p, "/blobs/"):
		atomic.AddInt64(&s.counts.Blobs, 1)
	case strings.HasSuffix(p, "/tags/list"):
		atomic.AddInt64(&s.counts.Tags, 1)
	default:
		atomic.AddInt64(&s.counts.Other, 1)
	}
}

type countingWriter struct {
	http.ResponseWriter
	n *int64
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.ResponseWriter.Write(p)
	atomic.AddInt64(w.n, int64(n))
	return n, err
}

// Flush lets streamed responses through.
func (w *countingWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
