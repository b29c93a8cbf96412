package bundle

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
)

// chainRegistry serves one skill, and answers the referrers of every
// manifest it serves with a referrer it makes up on the spot: a chain of
// referrers of referrers that never ends.
type chainRegistry struct {
	mu    sync.Mutex
	blobs map[digest.Digest][]byte
	types map[digest.Digest]string
	made  int
}

func (c *chainRegistry) put(mediaType string, b []byte) ocispec.Descriptor {
	d := digest.FromBytes(b)
	c.blobs[d], c.types[d] = b, mediaType
	return ocispec.Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(b))}
}

func (c *chainRegistry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := r.URL.Path
	last := p[strings.LastIndexByte(p, '/')+1:]
	switch {
	case p == "/v2/":
	case strings.Contains(p, "/referrers/"):
		subject := digest.Digest(last)
		if _, ok := c.blobs[subject]; !ok {
			http.NotFound(w, r)
			return
		}
		c.made++
		m, _ := json.Marshal(ocispec.Manifest{
			MediaType:    ocispec.MediaTypeImageManifest,
			ArtifactType: "application/x.flood",
			Config:       c.put(ocispec.MediaTypeEmptyJSON, []byte("{}")),
			Layers:       []ocispec.Descriptor{c.put("application/x.flood", []byte(subject))},
			Subject:      &ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: subject, Size: int64(len(c.blobs[subject]))},
		})
		m = []byte(strings.Replace(string(m), "{", `{"schemaVersion":2,`, 1))
		d := c.put(ocispec.MediaTypeImageManifest, m)
		d.ArtifactType = "application/x.flood"
		idx, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex, "manifests": []ocispec.Descriptor{d}})
		w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
		w.Write(idx)
	case strings.Contains(p, "/manifests/") || strings.Contains(p, "/blobs/"):
		b, ok := c.blobs[digest.Digest(last)]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", c.types[digest.Digest(last)])
		w.Header().Set("Docker-Content-Digest", last)
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	default:
		http.NotFound(w, r)
	}
}

// TestExportBoundsReferrerChains: a registry that answers the referrers
// of every manifest with one more referrer (a chain that never ends)
// cannot keep 'skillpm bundle' walking it: the export copies a bounded
// number of referrers and finishes. Before, oras-go's walk followed the
// chain until the test's deadline.
func TestExportBoundsReferrerChains(t *testing.T) {
	reg := &chainRegistry{blobs: map[digest.Digest][]byte{}, types: map[digest.Digest]string{}}
	dir := filepath.Join(t.TempDir(), "alpha")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: alpha\ndescription: Test skill alpha. Use it in tests.\nversion: 1.0.0\n---\n# alpha\n"), 0o644)
	pkg, err := registry.Pack(bg, dir, registry.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pkg.Close()
	lr, _ := pkg.OpenLayer()
	layer, _ := io.ReadAll(lr)
	lr.Close()
	reg.put(pkg.Layer.MediaType, layer)
	reg.put(pkg.ConfigDesc.MediaType, pkg.ConfigJSON)
	reg.put(pkg.Manifest.MediaType, pkg.ManifestJSON)
	srv := httptest.NewServer(reg)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c := registry.NewClient(registry.Options{PlainHTTPHosts: []string{host}})
	lock := &lockfile.File{Skills: []lockfile.Skill{{Name: "alpha", Version: "1.0.0", Repository: host + "/org/alpha", Manifest: pkg.Manifest.Digest.String(), Content: pkg.Layer.Digest.String()}}}
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	exp, err := Export(ctx, c, lock, filepath.Join(t.TempDir(), "bundle"), ExportOptions{})
	if err != nil {
		t.Fatalf("Export: %v", err)
	}
	reg.mu.Lock()
	made := reg.made
	reg.mu.Unlock()
	if made > 2*maxReferrers+2 {
		t.Errorf("the export asked for %d referrers of referrers; want at most %d", made, 2*maxReferrers+2)
	}
	if exp.Skills[0].Referrers != 1 {
		t.Errorf("referrers of the skill: got %d, want 1", exp.Skills[0].Referrers)
	}
}
