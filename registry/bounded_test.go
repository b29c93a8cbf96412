package registry

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/internal/httpbound"
)

// serveEndless answers GETs of paths ending in suffix with a body that
// never ends (no Content-Length), counting what it wrote into n.
func serveEndless(suffix string, n *atomic.Int64) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, suffix) || r.Method != http.MethodGet {
			return false
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
		buf := make([]byte, 32<<10)
		for r.Context().Err() == nil {
			m, err := w.Write(buf)
			n.Add(int64(m))
			if err != nil {
				return true
			}
		}
		return true
	}
}

// cacheBytes is the total size of the files in the cache's blob folder.
func cacheBytes(t *testing.T, c *Cache) int64 {
	t.Helper()
	var total int64
	filepath.WalkDir(filepath.Join(c.Dir(), "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total
}

// TestPullBoundsLayerReads: a content layer whose descriptor says 0 or
// fewer bytes, or more than the limit, is refused before anything is
// read; one whose body is longer than its descriptor is cut at the
// descriptor's size. Either way nothing beyond it reaches the cache.
// Before the fix, the size-0 layer was read (and cached) for ever.
func TestPullBoundsLayerReads(t *testing.T) {
	const maxBlob = 64 << 10
	f := newFixture(t, Options{Limits: Limits{MaxBlobSize: maxBlob}})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	good, err := f.client.Resolve(bg, pub.Ref)
	if err != nil {
		t.Fatal(err)
	}
	layer := good.Layout.Layers[0]
	tests := []struct {
		name    string
		size    int64
		wantMsg string
	}{
		{"size 0", 0, "sizes must be positive"},
		{"negative size", -1, "sizes must be positive"},
		{"oversized", maxBlob + 1, "over the 65536 byte limit (limits.max_blob_size)"},
		{"longer than its descriptor", layer.Size, "longer than its descriptor"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer f.srv.Hook(nil)
			var m ocispec.Manifest
			if err := json.Unmarshal(good.ManifestJSON, &m); err != nil {
				t.Fatal(err)
			}
			m.Layers[0].Size = tt.size
			m.Annotations = map[string]string{"case": tt.name} // a manifest digest of its own
			data, _ := json.Marshal(m)
			tag := "9.9." + string(rune('0'+i))
			var served atomic.Int64
			endless := serveEndless("/blobs/"+layer.Digest.String(), &served)
			manifest := serveInstead("/manifests/"+tag, data, ocispec.MediaTypeImageManifest)
			f.srv.Hook(func(w http.ResponseWriter, r *http.Request) bool {
				return manifest(w, r) || endless(w, r)
			})
			if err := f.cache.Delete(layer.Digest); err != nil {
				t.Fatal(err)
			}
			before := cacheBytes(t, f.cache)
			ctx, cancel := context.WithTimeout(bg, 20*time.Second)
			defer cancel()
			_, err := f.client.Pull(ctx, f.ref(t, "org/skills/pdf:"+tag), filepath.Join(t.TempDir(), "out"), PullOptions{})
			if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Pull: %v; want %v containing %q", err, ErrIntegrity, tt.wantMsg)
			}
			if f.cache.Has(layer.Digest, -1) {
				t.Errorf("the cache holds the refused layer")
			}
			// The new manifest is cached; nothing else may grow.
			if grown := cacheBytes(t, f.cache) - before; grown > int64(len(data)) {
				t.Errorf("the cache grew by %d bytes; want at most the %d byte manifest", grown, len(data))
			}
			if tt.size <= 0 || tt.size > maxBlob {
				if n := served.Load(); n != 0 {
					t.Errorf("the layer was read (%d bytes served) before its size was checked", n)
				}
			}
		})
	}
}

// TestCacheRefusesUnboundedWrites: the cache writer takes no more than
// the size it was opened with, and Put no negative size.
func TestCacheRefusesUnboundedWrites(t *testing.T) {
	c, err := OpenCache(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("x")
	if _, err := c.NewWriter(d, 0); !errors.Is(err, ErrIntegrity) {
		t.Errorf("NewWriter(size 0) = %v; want ErrIntegrity", err)
	}
	w, err := c.NewWriter(d, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := w.Write([]byte("abcdef")); !errors.Is(err, ErrIntegrity) {
		t.Errorf("Write past the size = %v; want ErrIntegrity", err)
	}
	if err := c.Put(bg, d, -1, strings.NewReader("x")); !errors.Is(err, ErrIntegrity) {
		t.Errorf("Put(size -1) = %v; want ErrIntegrity", err)
	}
	if c.Has(d, -1) {
		t.Error("the cache holds x")
	}
}

// loopLink answers GETs of paths containing part with body and a Link
// header to the very same page, counting the requests into n.
func loopLink(part, contentType, body string, n *atomic.Int64) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, part) || r.Method != http.MethodGet {
			return false
		}
		n.Add(1)
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Link", "<"+r.URL.RequestURI()+`>; rel="next"`)
		w.Write([]byte(body))
		return true
	}
}

// endlessPages answers with a Link to a new page every time.
func endlessPages(part, body string, n *atomic.Int64) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, part) || r.Method != http.MethodGet {
			return false
		}
		i := n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Link", "<"+r.URL.Path+"?n=1&last=p"+itoa(int(i))+`>; rel="next"`)
		w.Write([]byte(body))
		return true
	}
}

// TestListingsEnd: tags, referrers and the catalog stop on a next link
// back to a page already read, and after MaxPages pages or MaxListItems
// entries, with an ErrNetwork naming the registry. Before the fix each
// of these looped for ever.
func TestListingsEnd(t *testing.T) {
	f := newFixture(t, Options{Limits: Limits{MaxPages: 5, MaxListItems: 50}})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	repo := f.ref(t, "org/skills/pdf")
	prefix := f.ref(t, "org/skills")
	referrersBody := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}`
	many := `{"name":"org/skills/pdf","tags":["` + strings.Repeat(`x","`, 20) + `1.0.0"]}`
	tests := []struct {
		name    string
		hook    func(n *atomic.Int64) func(w http.ResponseWriter, r *http.Request) bool
		list    func() error
		wantMsg string
	}{
		{"tags loop", func(n *atomic.Int64) func(http.ResponseWriter, *http.Request) bool {
			return loopLink("/tags/list", "application/json", `{"name":"org/skills/pdf","tags":["1.0.0"]}`, n)
		}, func() error { _, err := f.client.Versions(bg, repo); return err }, "links back to a page already read"},
		{"tags without end", func(n *atomic.Int64) func(http.ResponseWriter, *http.Request) bool {
			return endlessPages("/tags/list", `{"name":"org/skills/pdf","tags":["1.0.0"]}`, n)
		}, func() error { _, err := f.client.Versions(bg, repo); return err }, "more than 5 pages (limits.max_pages)"},
		{"too many tags", func(n *atomic.Int64) func(http.ResponseWriter, *http.Request) bool {
			return endlessPages("/tags/list", many, n)
		}, func() error { _, err := f.client.Versions(bg, repo); return err }, "more than 50 entries (limits.max_list_items)"},
		{"referrers loop", func(n *atomic.Int64) func(http.ResponseWriter, *http.Request) bool {
			return loopLink("/referrers/", ocispec.MediaTypeImageIndex, referrersBody, n)
		}, func() error { _, err := f.client.Referrers(bg, pub.Ref, ""); return err }, "links back to a page already read"},
		{"inspect referrers loop", func(n *atomic.Int64) func(http.ResponseWriter, *http.Request) bool {
			return loopLink("/referrers/", ocispec.MediaTypeImageIndex, referrersBody, n)
		}, func() error { _, err := f.client.Inspect(bg, pub.Ref); return err }, "links back to a page already read"},
		{"catalog loop", func(n *atomic.Int64) func(http.ResponseWriter, *http.Request) bool {
			return loopLink("/_catalog", "application/json", `{"repositories":["org/skills/pdf"]}`, n)
		}, func() error { _, err := f.client.Repositories(bg, prefix); return err }, "catalog: page 1 links back"},
		{"catalog without end", func(n *atomic.Int64) func(http.ResponseWriter, *http.Request) bool {
			return endlessPages("/_catalog", `{"repositories":["org/skills/pdf"]}`, n)
		}, func() error { _, err := f.client.Repositories(bg, prefix); return err }, "more than 5 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int64
			f.srv.Hook(tt.hook(&n))
			defer f.srv.Hook(nil)
			err := tt.list()
			if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), tt.wantMsg) || !strings.Contains(err.Error(), "registry "+f.srv.Host) {
				t.Fatalf("listing: %v; want %v naming registry %s and containing %q", err, ErrNetwork, f.srv.Host, tt.wantMsg)
			}
			if got := n.Load(); got > 6 {
				t.Errorf("%d pages requested; want at most 6", got)
			}
		})
	}
}

// TestTimeoutsBoundRegistryReads: a registry that never answers fails a
// pull with ErrNetwork naming it after the response-header timeout, and
// is not asked again (a timeout is not retried).
func TestTimeoutsBoundRegistryReads(t *testing.T) {
	f := newFixture(t, Options{Timeouts: httpbound.Timeouts{ResponseHeader: 200 * time.Millisecond, Stall: 200 * time.Millisecond}})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	var n atomic.Int64
	f.srv.Hook(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.Contains(r.URL.Path, "/manifests/") {
			return false
		}
		n.Add(1)
		<-r.Context().Done()
		return true
	})
	defer f.srv.Hook(nil)
	ctx, cancel := context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	_, err := f.client.Pull(ctx, pub.Ref.WithDigest("").WithTag("1.0.0"), filepath.Join(t.TempDir(), "out"), PullOptions{})
	var te *httpbound.TimeoutError
	if !errors.Is(err, ErrNetwork) || !errors.As(err, &te) || te.Phase != httpbound.PhaseResponseHeader || !strings.Contains(err.Error(), f.srv.Host) {
		t.Fatalf("Pull: %v; want an ErrNetwork response_header timeout naming %s", err, f.srv.Host)
	}
	if ctx.Err() != nil {
		t.Fatal("the pull ran until the test's own deadline")
	}
	if got := n.Load(); got != 1 {
		t.Errorf("the silent registry was asked %d times; want 1 (no retries of a timeout)", got)
	}
}

// TestStallDuringLayer: a registry that sends a layer's headers and then
// drips it fails the pull with a stall ErrNetwork, not an integrity or
// archive error, and leaves nothing in the cache.
func TestStallDuringLayer(t *testing.T) {
	f := newFixture(t, Options{Timeouts: httpbound.Timeouts{Stall: 200 * time.Millisecond}})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	res, err := f.client.Resolve(bg, pub.Ref)
	if err != nil {
		t.Fatal(err)
	}
	layer := res.Layout.Layers[0]
	if err := f.cache.Delete(layer.Digest); err != nil {
		t.Fatal(err)
	}
	f.srv.Hook(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/blobs/"+layer.Digest.String()) || r.Method != http.MethodGet {
			return false
		}
		w.Header().Set("Content-Length", itoa(int(layer.Size)))
		w.WriteHeader(http.StatusOK)
		for r.Context().Err() == nil {
			if _, err := w.Write([]byte{0x1f}); err != nil {
				return true
			}
			w.(http.Flusher).Flush()
			time.Sleep(20 * time.Millisecond)
		}
		return true
	})
	defer f.srv.Hook(nil)
	ctx, cancel := context.WithTimeout(bg, 20*time.Second)
	defer cancel()
	_, err = f.client.Pull(ctx, pub.Ref, filepath.Join(t.TempDir(), "out"), PullOptions{})
	var te *httpbound.TimeoutError
	if !errors.Is(err, ErrNetwork) || errors.Is(err, ErrUnsafeArchive) || !errors.As(err, &te) || te.Phase != httpbound.PhaseStall {
		t.Fatalf("Pull: %v; want a stall ErrNetwork", err)
	}
	if f.cache.Has(layer.Digest, -1) {
		t.Error("the cache holds the stalled layer")
	}
}
