package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/registry"
)

// referrersRegistry is a tiny in-memory registry with the OCI 1.1
// referrers API (one repository), which the e2e registries lack.
type referrersRegistry struct {
	mu        sync.Mutex
	blobs     map[digest.Digest][]byte
	manifests map[string][]byte // by digest and tag
	tagPuts   []string          // tags pushed (a fallback index would be one)
}

func (r *referrersRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := strings.TrimPrefix(req.URL.Path, "/v2/skills/pdf/")
	switch {
	case req.URL.Path == "/v2/":
	case strings.HasPrefix(p, "blobs/uploads/"):
		if req.Method == http.MethodPost {
			w.Header().Set("Location", "/v2/skills/pdf/blobs/uploads/1")
			w.WriteHeader(http.StatusAccepted)
			return
		}
		data, _ := io.ReadAll(req.Body)
		r.blobs[digest.Digest(req.URL.Query().Get("digest"))] = data
		w.WriteHeader(http.StatusCreated)
	case strings.HasPrefix(p, "blobs/"):
		data, ok := r.blobs[digest.Digest(strings.TrimPrefix(p, "blobs/"))]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data)
	case strings.HasPrefix(p, "manifests/"):
		ref := strings.TrimPrefix(p, "manifests/")
		if req.Method == http.MethodPut {
			data, _ := io.ReadAll(req.Body)
			d := digest.FromBytes(data)
			r.manifests[d.String()], r.manifests[ref] = data, data
			if !strings.HasPrefix(ref, "sha256:") {
				r.tagPuts = append(r.tagPuts, ref)
			}
			var m ocispec.Manifest
			if json.Unmarshal(data, &m) == nil && m.Subject != nil {
				w.Header().Set("OCI-Subject", m.Subject.Digest.String())
			}
			w.Header().Set("Docker-Content-Digest", d.String())
			w.WriteHeader(http.StatusCreated)
			return
		}
		data, ok := r.manifests[ref]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", ocispec.MediaTypeImageManifest)
		w.Header().Set("Docker-Content-Digest", digest.FromBytes(data).String())
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		if req.Method != http.MethodHead {
			w.Write(data)
		}
	case strings.HasPrefix(p, "referrers/"):
		subject := strings.TrimPrefix(p, "referrers/")
		idx := ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex, Manifests: []ocispec.Descriptor{}}
		for k, data := range r.manifests {
			var m ocispec.Manifest
			if !strings.HasPrefix(k, "sha256:") || json.Unmarshal(data, &m) != nil || m.Subject == nil || m.Subject.Digest.String() != subject {
				continue
			}
			idx.Manifests = append(idx.Manifests, ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.Digest(k), Size: int64(len(data)), ArtifactType: m.ArtifactType, Annotations: m.Annotations})
		}
		w.Header().Set("Content-Type", ocispec.MediaTypeImageIndex)
		json.NewEncoder(w).Encode(idx)
	default:
		http.NotFound(w, req)
	}
}

// TestNativeReferrers signs through the referrers API: no fallback tag
// is written, and the signature is found and verified.
func TestNativeReferrers(t *testing.T) {
	reg := &referrersRegistry{blobs: map[digest.Digest][]byte{}, manifests: map[string][]byte{}}
	srv := httptest.NewServer(reg)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	c := registry.NewClient(registry.Options{PlainHTTP: true})
	ctx := context.Background()

	// A subject manifest (any image manifest will do).
	subject := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`)
	d := digest.FromBytes(subject)
	reg.manifests[d.String()] = subject
	ref, err := registry.ParseReference(host + "/skills/pdf@" + d.String())
	if err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	good, _ := testKey(t, dir, "good")
	s, err := NewSigner(SignerOptions{Keypair: good, Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Sign(ctx, ref.Repo(), d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Attach(ctx, c, ref, a, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := reg.tagPuts; len(got) != 0 {
		t.Errorf("tags pushed = %v; want none (the registry has the referrers API)", got)
	}
	pol := writePolicy(t, dir, "version: 1\nrules:\n  - prefix: \""+host+"\"\n    keys: [good.pub]\n")
	v, err := NewVerifier(pol, Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Check(ctx, c, v, ref.Repo(), ref)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Signer; !strings.HasPrefix(got, "key:sha256:") {
		t.Errorf("signer = %q; want a key", got)
	}
	found, err := List(ctx, c, ref)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(found), 1; got != want || found[0].PredicateType != PredicateSign {
		t.Errorf("referrers = %+v; want %d signature", found, want)
	}
}

// A port written with leading zeros, or an empty port, dials the same
// registry ("127.0.0.1:05000" is port 5000, "ghcr.io:" port 443), so a
// skills.yaml that spells its registry so must still meet the policy's
// rule for that registry, not the looser "*" one.
func TestPortSpellingsMeetTheRule(t *testing.T) {
	reg := &referrersRegistry{blobs: map[digest.Digest][]byte{}, manifests: map[string][]byte{}}
	srv := httptest.NewServer(reg)
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	name, port, _ := strings.Cut(host, ":")
	c := registry.NewClient(registry.Options{PlainHTTP: true})
	ctx := context.Background()

	// An unsigned manifest, in a registry whose rule requires a key.
	subject := []byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]}`)
	d := digest.FromBytes(subject)
	reg.manifests[d.String()] = subject
	dir := t.TempDir()
	testKey(t, dir, "good")
	pol := writePolicy(t, dir, "version: 1\nrules:\n  - prefix: \"*\"\n    require: none\n  - prefix: \""+host+"/skills\"\n    keys: [good.pub]\n")
	v, err := NewVerifier(pol, Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	for _, spelled := range []string{host, name + ":0" + port, name + ":000" + port} {
		ref, err := registry.ParseReference(spelled + "/skills/pdf@" + d.String())
		if err != nil {
			t.Errorf("%s: %v", spelled, err)
			continue
		}
		if _, err := c.Head(ctx, ref); err != nil {
			t.Fatalf("%s: the registry is not reachable so: %v", spelled, err)
		}
		_, err = Check(ctx, c, v, spelled+"/skills/pdf", ref)
		if !errors.Is(err, ErrPolicy) {
			t.Errorf("%s: an unsigned manifest: %v; want the rule for %s/skills to deny it", spelled, err, host)
		}
	}
}
