package registry

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/skillpm/skillpm/registry/internal/regtest"
)

// fixture is a loopback registry and a client with a cache.
type fixture struct {
	srv    *regtest.Server
	client *Client
	cache  *Cache
	log    *bytes.Buffer
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	f := &fixture{srv: regtest.New(t), log: &bytes.Buffer{}}
	var err error
	if f.cache, err = OpenCache(filepath.Join(t.TempDir(), "cache")); err != nil {
		t.Fatal(err)
	}
	opts.PlainHTTPHosts = append(opts.PlainHTTPHosts, f.srv.Host)
	opts.Cache = f.cache
	if opts.Logf == nil {
		var mu sync.Mutex // Logf is called from concurrent requests
		opts.Logf = func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			f.log.WriteString(strings.TrimSpace(sprintf(format, args...)) + "\n")
		}
	}
	f.client = NewClient(opts)
	return f
}

func (f *fixture) ref(t *testing.T, s string) Reference {
	t.Helper()
	r, err := ParseReference(f.srv.Host + "/" + s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// publish packs and publishes a generated skill.
func (f *fixture) publish(t *testing.T, name, version string, extra map[string]string) *Published {
	t.Helper()
	dir := writeSkill(t, t.TempDir(), name, version, extra)
	p, err := Pack(bg, dir, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	pub, err := f.client.Publish(bg, p, f.ref(t, "org/skills/"+name), PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return pub
}

func TestPublishPullRoundTrip(t *testing.T) {
	f := newFixture(t, Options{})
	pub := f.publish(t, "pdf", "1.2.0", map[string]string{"scripts/run.sh": "#!/bin/sh\necho hi\n", "references/api.md": "# API\n"})
	out := filepath.Join(t.TempDir(), "pdf")
	got, err := f.client.Pull(bg, f.ref(t, "org/skills/pdf:1.2.0"), out, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Ref.Digest != pub.Ref.Digest || got.Name() != "pdf" || got.Version() != "1.2.0" || got.Layout.Note != "" {
		t.Errorf("pulled %s %s@%s note %q; want pdf 1.2.0@%s and no note", got.Ref.Digest, got.Name(), got.Version(), got.Layout.Note, pub.Ref.Digest)
	}
	if tree, want := listTree(t, out), []string{"SKILL.md", "references", "references/api.md", "scripts", "scripts/run.sh"}; !slices.Equal(tree, want) {
		t.Errorf("pulled tree %q; want %q", tree, want)
	}
	if fi, err := os.Stat(filepath.Join(out, "scripts/run.sh")); err != nil || fi.Mode()&0o100 == 0 {
		t.Errorf("run.sh lost its exec bit: %v %v", fi.Mode(), err)
	}
}

func TestPullCacheWarmAndCorrupt(t *testing.T) {
	f := newFixture(t, Options{})
	pub := f.publish(t, "pdf", "1.0.0", map[string]string{"references/big.md": strings.Repeat("data ", 4000)})
	byTag, byDigest := f.ref(t, "org/skills/pdf:1.0.0"), f.ref(t, "org/skills/pdf@"+pub.Ref.Digest.String())
	pull := func(ref Reference) {
		t.Helper()
		if _, err := f.client.Pull(bg, ref, filepath.Join(t.TempDir(), "out"), PullOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	f.srv.Reset()
	pull(byTag)
	if c := f.srv.Counts(); c.Blobs != 2 || c.Manifests != 1 {
		t.Errorf("cold pull: %d blob and %d manifest requests; want 2 and 1", c.Blobs, c.Manifests)
	}
	mp := filepath.Join(f.cache.Dir(), "blobs", "sha256", pub.Ref.Digest.Encoded())
	before, err := os.Stat(mp)
	if err != nil {
		t.Fatalf("cold pull did not cache the manifest: %v", err)
	}
	f.srv.Reset()
	pull(byTag)
	if c := f.srv.Counts(); c.Blobs != 0 || c.Manifests != 1 {
		t.Errorf("warm pull by tag: %d blob and %d manifest requests; want 0 and 1", c.Blobs, c.Manifests)
	}
	if after, err := os.Stat(mp); err != nil || !os.SameFile(before, after) {
		t.Errorf("warm pull by tag rewrote the cached manifest (%v)", err)
	}
	f.srv.Reset()
	pull(byDigest)
	if c := f.srv.Counts(); c.Total() != 0 {
		t.Errorf("warm pull by digest: %d requests; want none", c.Total())
	}

	// Corrupt the cached manifest (same size): a pull by digest detects
	// it, drops it and fetches it again.
	mb, _ := os.ReadFile(mp)
	mb[len(mb)/2] ^= 0x20
	if err := os.WriteFile(mp, mb, 0o644); err != nil {
		t.Fatal(err)
	}
	f.srv.Reset()
	pull(byDigest)
	if c := f.srv.Counts(); c.Manifests != 1 || c.Blobs != 0 {
		t.Errorf("pull over a corrupt cached manifest: %d manifest and %d blob requests; want 1 and 0", c.Manifests, c.Blobs)
	}
	f.srv.Reset()
	pull(byDigest)
	if c := f.srv.Counts(); c.Total() != 0 {
		t.Errorf("pull after the manifest's repair: %d requests; want none", c.Total())
	}

	// Corrupt the cached layer (same size): detected, dropped, fetched again.
	res, err := f.client.Resolve(bg, byDigest)
	if err != nil {
		t.Fatal(err)
	}
	layer := res.Layout.Layers[0]
	p := filepath.Join(f.cache.Dir(), "blobs", "sha256", layer.Digest.Encoded())
	b, _ := os.ReadFile(p)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// And the cached config.
	cp := filepath.Join(f.cache.Dir(), "blobs", "sha256", res.Layout.Config.Digest.Encoded())
	os.WriteFile(cp, bytes.Repeat([]byte("x"), int(res.Layout.Config.Size)), 0o644)
	f.srv.Reset()
	pull(byDigest)
	if c := f.srv.Counts(); c.Blobs != 2 {
		t.Errorf("pull over a corrupt cache: %d blob requests; want 2 (config and layer fetched again)", c.Blobs)
	}
	f.srv.Reset()
	pull(byDigest)
	if c := f.srv.Counts(); c.Total() != 0 {
		t.Errorf("pull after repair: %d requests; want none", c.Total())
	}
}

func TestPublishRefusesToMoveTag(t *testing.T) {
	f := newFixture(t, Options{})
	first := f.publish(t, "pdf", "1.0.0", nil)
	dir := writeSkill(t, t.TempDir(), "pdf", "1.0.0", map[string]string{"new.md": "changed"})
	p, err := Pack(bg, dir, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	repo := f.ref(t, "org/skills/pdf")
	if _, err := f.client.Publish(bg, p, repo, PublishOptions{}); !errors.Is(err, ErrTagExists) {
		t.Fatalf("Publish changed content under 1.0.0: %v; want ErrTagExists", err)
	}
	res, _ := f.client.Resolve(bg, f.ref(t, "org/skills/pdf:1.0.0"))
	if res.Ref.Digest != first.Ref.Digest {
		t.Errorf("tag moved to %s after a refused publish", res.Ref.Digest)
	}
	pub, err := f.client.Publish(bg, p, repo, PublishOptions{Force: true})
	if err != nil || pub.Unchanged {
		t.Fatalf("Publish --force: %v (unchanged %v); want a moved tag", err, pub != nil && pub.Unchanged)
	}
	again, err := f.client.Publish(bg, p, repo, PublishOptions{})
	if err != nil || !again.Unchanged {
		t.Errorf("re-publishing identical content: %v unchanged=%v; want unchanged", err, again != nil && again.Unchanged)
	}
}

func TestVersionsAndRanges(t *testing.T) {
	f := newFixture(t, Options{})
	for _, v := range []string{"1.10.0", "1.0.0", "2.0.0-rc.1", "1.2.0", "1.2.1+build.7"} {
		f.publish(t, "pdf", v, nil)
	}
	vs, err := f.client.Versions(bg, f.ref(t, "org/skills/pdf"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Original())
	}
	if want := []string{"1.0.0", "1.2.0", "1.2.1+build.7", "1.10.0", "2.0.0-rc.1"}; !slices.Equal(got, want) {
		t.Errorf("Versions = %q; want %q", got, want)
	}
	tests := []struct{ ref, want string }{
		{"org/skills/pdf", "1.10.0"},
		{"org/skills/pdf@^1.2", "1.10.0"},
		{"org/skills/pdf@~1.2", "1.2.1+build.7"},
		{"org/skills/pdf@>=2.0.0-0", "2.0.0-rc.1"},
		{"org/skills/pdf:1.2.1+build.7", "1.2.1+build.7"},
	}
	for _, tt := range tests {
		res, err := f.client.Resolve(bg, f.ref(t, tt.ref))
		if err != nil {
			t.Errorf("Resolve(%s): %v", tt.ref, err)
			continue
		}
		if res.Version() != tt.want {
			t.Errorf("Resolve(%s) version = %s; want %s", tt.ref, res.Version(), tt.want)
		}
	}
	if _, err := f.client.Resolve(bg, f.ref(t, "org/skills/pdf@^3")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(@^3): %v; want ErrNotFound", err)
	}
	if _, err := f.client.Resolve(bg, f.ref(t, "org/skills/nothing:1.0.0")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve(missing repo): %v; want ErrNotFound", err)
	}
}

func TestLayoutPublishPull(t *testing.T) {
	c := NewClient(Options{})
	layout := filepath.Join(t.TempDir(), "registry", "pdf")
	repo, err := ParseReference("oci:" + layout)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Resolve(bg, repo.WithTag("1.0.0")); !errors.Is(err, ErrNotFound) {
		t.Errorf("Resolve in a missing layout: %v; want ErrNotFound", err)
	}
	if _, err := os.Stat(layout); err == nil {
		t.Errorf("resolving created the layout folder")
	}
	for _, v := range []string{"1.0.0", "1.1.0"} {
		p, err := Pack(bg, writeSkill(t, t.TempDir(), "pdf", v, nil), PackOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Publish(bg, p, repo, PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		p.Close()
	}
	out := filepath.Join(t.TempDir(), "out")
	got, err := c.Pull(bg, repo, out, PullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version() != "1.1.0" {
		t.Errorf("pulled %s; want 1.1.0", got.Version())
	}
	if _, err := os.Stat(filepath.Join(out, "SKILL.md")); err != nil {
		t.Error(err)
	}
}

func TestRetriesServerErrors(t *testing.T) {
	fast := &retry.GenericPolicy{Retryable: retry.DefaultPredicate, Backoff: retry.ExponentialBackoff(time.Millisecond, 2, 0), MinWait: time.Millisecond, MaxWait: 10 * time.Millisecond, MaxRetry: 3}
	f := newFixture(t, Options{Retry: fast})
	f.publish(t, "pdf", "1.0.0", nil)
	var failures atomic.Int32
	f.srv.Hook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/blobs/") && failures.Add(1) <= 2 {
			http.Error(w, "try later", http.StatusServiceUnavailable)
			return true
		}
		return false
	})
	if _, err := f.client.Pull(bg, f.ref(t, "org/skills/pdf:1.0.0"), filepath.Join(t.TempDir(), "o"), PullOptions{}); err != nil {
		t.Fatalf("Pull through two 503s: %v", err)
	}
	f.srv.Hook(func(w http.ResponseWriter, r *http.Request) bool {
		http.Error(w, "down", http.StatusBadGateway)
		return true
	})
	if _, err := f.client.Resolve(bg, f.ref(t, "org/skills/pdf:1.0.0")); !errors.Is(err, ErrNetwork) {
		t.Errorf("Resolve against a failing registry: %v; want ErrNetwork", err)
	}
}

func sprintf(format string, args ...any) string {
	var b strings.Builder
	fprintf(&b, format, args...)
	return b.String()
}

var _ = io.Discard
var _ = digest.SHA256

func TestInspectReferrers(t *testing.T) {
	f := newFixture(t, Options{})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	in, err := f.client.Inspect(bg, f.ref(t, "org/skills/pdf:1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Referrers) != 0 {
		t.Fatalf("referrers before signing: %d; want 0", len(in.Referrers))
	}
	// Attach a signature-like referrer, as cosign would.
	r := f.raw(t, "org/skills/pdf")
	subject := in.Layout.Manifest
	subject.Annotations = nil
	bundle := r.blob("application/vnd.dev.sigstore.bundle.v0.3+json", []byte(`{}`), nil)
	r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest,
		"artifactType": "application/vnd.dev.sigstore.bundle.v0.3+json", "config": emptyConfig(r), "layers": []ocispec.Descriptor{bundle}, "subject": subject},
		"sha256-"+pub.Ref.Digest.Encoded())
	in, err = f.client.Inspect(bg, f.ref(t, "org/skills/pdf:1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Referrers) != 1 || in.Referrers[0].ArtifactType != "application/vnd.dev.sigstore.bundle.v0.3+json" {
		t.Errorf("referrers = %+v; want the bundle", in.Referrers)
	}
	// Signature tags are not versions.
	vs, _ := f.client.Versions(bg, f.ref(t, "org/skills/pdf"))
	if len(vs) != 1 {
		t.Errorf("Versions = %v; want only 1.0.0", vs)
	}
}
