package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/registry"
)

// floodRegistry lists n sigstore bundle referrers for any subject, each
// a distinct manifest whose layer is one bundle-sized blob of junk: a
// hostile registry (or whoever can push referrers) trying to make a
// verifier read n bundles.
type floodRegistry struct {
	n         int
	blob      []byte
	manifests map[digest.Digest][]byte
	fetched   atomic.Int64 // referrer manifests served
}

func newFloodRegistry(n, blobSize int) *floodRegistry {
	f := &floodRegistry{n: n, blob: []byte(strings.Repeat("x", blobSize)), manifests: map[digest.Digest][]byte{}}
	for i := range n {
		m := ocispec.Manifest{
			Versioned:    specs.Versioned{SchemaVersion: 2},
			MediaType:    ocispec.MediaTypeImageManifest,
			ArtifactType: BundleMediaType,
			Config:       ocispec.DescriptorEmptyJSON,
			Layers:       []ocispec.Descriptor{{MediaType: BundleMediaType, Digest: digest.FromBytes(f.blob), Size: int64(len(f.blob))}},
			Annotations:  map[string]string{"n": fmt.Sprint(i)},
		}
		data, _ := json.Marshal(m)
		f.manifests[digest.FromBytes(data)] = data
	}
	return f
}

func (f *floodRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	p := strings.TrimPrefix(req.URL.Path, "/v2/skills/pdf/")
	switch {
	case req.URL.Path == "/v2/":
	case strings.HasPrefix(p, "referrers/"):
		idx := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex}
		for d, data := range f.manifests {
			idx.Manifests = append(idx.Manifests, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: d, Size: int64(len(data)), ArtifactType: BundleMediaType})
		}
		w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
		json.NewEncoder(w).Encode(idx)
	case strings.HasPrefix(p, "manifests/"):
		data, ok := f.manifests[digest.Digest(strings.TrimPrefix(p, "manifests/"))]
		if !ok {
			http.NotFound(w, req)
			return
		}
		f.fetched.Add(1)
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
		w.Header().Set("Docker-Content-Digest", digest.FromBytes(data).String())
		w.Write(data)
	case strings.HasPrefix(p, "blobs/"):
		w.Write(f.blob)
	default:
		http.NotFound(w, req)
	}
}

// A manifest with thousands of bundle referrers (or a few of a MiB
// each) is not read whole: a bounded number of bundles and bytes is
// fetched, and the rest reported, so the policy still decides.
func TestFetchManyReferrers(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n, size  int
		maxFetch int64
	}{
		{"many small", 2000, 100, maxReferrers},
		{"few large", 40, maxBundle, maxReferrerBytes/maxBundle + 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, c, ref := serveFlood(t, tc.n, tc.size)
			envs, err := Fetch(context.Background(), c, ref)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.fetched.Load(); got > tc.maxFetch {
				t.Errorf("referrer manifests fetched = %d; want at most %d", got, tc.maxFetch)
			}
			var bytes int
			var over bool
			for _, e := range envs {
				bytes += len(e.Bundle)
				over = over || e.Err != nil && strings.Contains(e.Err.Error(), "limit")
			}
			if bytes > maxReferrerBytes {
				t.Errorf("bundle bytes kept = %d; want at most %d", bytes, maxReferrerBytes)
			}
			if !over {
				t.Errorf("no envelope says referrers were left unread over a limit")
			}

			// The policy still decides: a rule requiring a signature denies.
			pol, err := ParsePolicy("", []byte("version: 1\nrules:\n  - prefix: \"*\"\n    identities: [{issuer: x, subject: y}]\n"))
			if err != nil {
				t.Fatal(err)
			}
			v, err := NewVerifier(pol, Options{Sigstore: local})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := v.Verify(context.Background(), ref.Repo(), ref.Digest, envs); err == nil {
				t.Error("Verify accepted a flood of junk referrers")
			}
		})
	}
}

// inspect describes no more bundles than a check reads.
func TestDescribeManyReferrers(t *testing.T) {
	f, c, ref := serveFlood(t, 500, 100)
	descs, err := c.Referrers(context.Background(), ref, "")
	if err != nil {
		t.Fatal(err)
	}
	in := &registry.Inspection{Resolved: &registry.Resolved{Ref: ref}, Referrers: descs}
	DescribeReferrers(context.Background(), claimBackend{predicateType: PredicateSign, signer: "x"}, c, in)
	if got := f.fetched.Load(); got > maxReferrers {
		t.Errorf("referrer manifests fetched = %d; want at most %d", got, maxReferrers)
	}
}

// serveFlood serves a flood registry of n referrers of size bytes for
// the test's length, and returns it, a client and the flooded subject.
func serveFlood(t *testing.T, n, size int) (*floodRegistry, *registry.Client, registry.Reference) {
	t.Helper()
	f := newFloodRegistry(n, size)
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	ref, err := registry.ParseReference(strings.TrimPrefix(srv.URL, "http://") + "/skills/pdf@" + digest.FromString("subject").String())
	if err != nil {
		t.Fatal(err)
	}
	return f, registry.NewClient(registry.Options{PlainHTTP: true}), ref
}
