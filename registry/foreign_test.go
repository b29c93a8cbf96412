package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"
)

// rawRepo pushes hand-made artifacts, as other tools would.
type rawRepo struct {
	t    *testing.T
	repo *remote.Repository
}

func (f *fixture) raw(t *testing.T, name string) *rawRepo {
	t.Helper()
	repo, err := remote.NewRepository(f.srv.Host + "/" + name)
	if err != nil {
		t.Fatal(err)
	}
	repo.PlainHTTP = true
	return &rawRepo{t: t, repo: repo}
}

func (r *rawRepo) blob(mediaType string, data []byte, ann map[string]string) ocispec.Descriptor {
	r.t.Helper()
	d := content.NewDescriptorFromBytes(mediaType, data)
	if err := r.repo.Push(bg, d, bytes.NewReader(data)); err != nil {
		r.t.Fatal(err)
	}
	d.Annotations = ann
	return d
}

// manifest pushes v (marshalled as is) under tag with mediaType.
func (r *rawRepo) manifest(mediaType string, v any, tag string) ocispec.Descriptor {
	r.t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		r.t.Fatal(err)
	}
	d := content.NewDescriptorFromBytes(mediaType, data)
	if err := r.repo.PushReference(bg, d, bytes.NewReader(data), tag); err != nil {
		r.t.Fatal(err)
	}
	return d
}

func emptyConfig(r *rawRepo) ocispec.Descriptor {
	return r.blob(ocispec.MediaTypeEmptyJSON, []byte("{}"), nil)
}

func TestPullForeignArtifacts(t *testing.T) {
	f := newFixture(t, Options{})
	folder := archive(t, entry{name: "pdf/", typ: '5'}, entry{name: "pdf/SKILL.md", body: skillMD}, entry{name: "pdf/notes.md", body: "n"})
	top := archive(t, entry{name: "./SKILL.md", body: skillMD}, entry{name: "./notes.md", body: "n"})
	tests := []struct {
		name     string
		push     func(r *rawRepo)
		format   Format
		wantNote string
	}{
		{"oras push of a folder", func(r *rawRepo) {
			l := r.blob(ocispec.MediaTypeImageLayerGzip, folder, map[string]string{ocispec.AnnotationTitle: "pdf", AnnotationORASUnpack: "true"})
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": "application/vnd.unknown.artifact.v1", "config": emptyConfig(r), "layers": []ocispec.Descriptor{l}}, "1.0.0")
		}, FormatArchive, "artifactType application/vnd.unknown.artifact.v1"},
		{"oras push of a tarball file", func(r *rawRepo) {
			l := r.blob(ocispec.MediaTypeImageLayer, top, map[string]string{ocispec.AnnotationTitle: "pdf.tar.gz"})
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": "application/vnd.acme.skill", "config": emptyConfig(r), "layers": []ocispec.Descriptor{l}}, "1.0.0")
		}, FormatArchive, "application/vnd.oci.image.layer.v1.tar layer"},
		{"oras push of files", func(r *rawRepo) {
			a := r.blob(ocispec.MediaTypeImageLayer, []byte(skillMD), map[string]string{ocispec.AnnotationTitle: "SKILL.md"})
			b := r.blob(ocispec.MediaTypeImageLayer, []byte("n"), map[string]string{ocispec.AnnotationTitle: "notes.md"})
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": "application/vnd.unknown.artifact.v1", "config": emptyConfig(r), "layers": []ocispec.Descriptor{a, b}}, "1.0.0")
		}, FormatFiles, "2 files pushed one layer each"},
		{"other tool, no artifactType or mediaType", func(r *rawRepo) {
			cfg := r.blob("application/vnd.oci.image.config.v1+json", []byte(`{"name":"pdf"}`), nil)
			l := r.blob(ocispec.MediaTypeImageLayerGzip, folder, nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "config": cfg, "layers": []ocispec.Descriptor{l}}, "1.0.0")
		}, FormatArchive, "config application/vnd.oci.image.config.v1+json"},
		{"other tool, wrapped in an index", func(r *rawRepo) {
			l := r.blob("application/vnd.example.skill.layer.v1.tar+gzip", folder, nil)
			m := r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": "application/vnd.example.skill.v1", "config": emptyConfig(r), "layers": []ocispec.Descriptor{l}}, "inner")
			m.ArtifactType = "application/vnd.example.skill.v1"
			r.manifest(ocispec.MediaTypeImageIndex, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex, "manifests": []ocispec.Descriptor{m}}, "1.0.0")
		}, FormatArchive, "application/vnd.example.skill.layer.v1.tar+gzip layer"},
		{"skillpm artifact from before the layer was titled for oras", func(r *rawRepo) {
			cfg := r.blob(MediaTypeConfig, []byte(`{"schemaVersion":"0.1.0","name":"pdf","version":"1.0.0"}`), nil)
			l := r.blob(MediaTypeContent, folder, nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": cfg, "layers": []ocispec.Descriptor{l}}, "1.0.0")
		}, FormatAgentSkills, ""},
		{"agent skills layout with an extra layer", func(r *rawRepo) {
			cfg := r.blob(MediaTypeConfig, []byte(`{"schemaVersion":"0.1.0","name":"pdf","version":"1.0.0"}`), nil)
			card := r.blob("application/vnd.docsclaw.skill.card.v1+yaml", []byte("name: pdf\n"), nil)
			l := r.blob(MediaTypeContent, folder, nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": cfg, "layers": []ocispec.Descriptor{card, l}}, "1.0.0")
		}, FormatAgentSkills, "1 extra layers (ignored)"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "foreign/s" + string(rune('a'+i))
			tt.push(f.raw(t, name))
			out := filepath.Join(t.TempDir(), "out")
			got, err := f.client.Pull(bg, f.ref(t, name+":1.0.0"), out, PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Layout.Format != tt.format || !strings.Contains(got.Layout.Note, tt.wantNote) {
				t.Errorf("format %s note %q; want %s and a note containing %q", got.Layout.Format, got.Layout.Note, tt.format, tt.wantNote)
			}
			if tree := listTree(t, out); !slices.Contains(tree, "SKILL.md") {
				t.Errorf("pulled %q; want SKILL.md at the top", tree)
			}
		})
	}
}

// TestPullHostileRegistry serves tampered, oversized and mislabelled
// artifacts. Each fails with its own error and writes nothing: no
// output folder, and nothing unverified in the cache.
func TestPullHostileRegistry(t *testing.T) {
	f := newFixture(t, Options{Limits: Limits{MaxManifestSize: 4096, MaxConfigSize: 512}})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	good, err := f.client.Resolve(bg, f.ref(t, "org/skills/pdf:1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	layer := good.Layout.Layers[0]
	// Drop what Resolve cached so each case starts cold.
	os.RemoveAll(filepath.Join(f.cache.Dir(), "blobs"))
	f.cache, _ = OpenCache(f.cache.Dir())

	flip := func(b []byte) []byte { b = slices.Clone(b); b[len(b)/2] ^= 0x01; return b }

	tests := []struct {
		name    string
		setup   func(t *testing.T) Reference
		wantIs  error
		wantMsg string
	}{
		{"manifest digest mismatch", func(t *testing.T) Reference {
			f.srv.Hook(serveInstead("/manifests/"+pub.Ref.Digest.String(), flip(good.ManifestJSON), ocispec.MediaTypeImageManifest))
			return f.ref(t, "org/skills/pdf@"+pub.Ref.Digest.String())
		}, ErrIntegrity, "does not match its digest"},
		{"layer digest mismatch", func(t *testing.T) Reference {
			data := fetchBlob(t, f, "org/skills/pdf", layer.Digest.String())
			f.srv.Hook(serveInstead("/blobs/"+layer.Digest.String(), flip(data), "application/octet-stream"))
			return f.ref(t, "org/skills/pdf:1.0.0")
		}, ErrIntegrity, "digest is"},
		{"oversized manifest", func(t *testing.T) Reference {
			r := f.raw(t, "hostile/big")
			l := r.blob(MediaTypeContent, archive(t, entry{name: "SKILL.md", body: skillMD}), nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": emptyConfig(r), "layers": []ocispec.Descriptor{l}, "annotations": map[string]string{"pad": strings.Repeat("x", 8192)}}, "1.0.0")
			return f.ref(t, "hostile/big:1.0.0")
		}, ErrIntegrity, "over the 4096 byte limit"},
		{"oversized config", func(t *testing.T) Reference {
			r := f.raw(t, "hostile/bigconfig")
			cfg := r.blob(MediaTypeConfig, []byte(`{"name":"pdf","metadata":{"pad":"`+strings.Repeat("x", 1024)+`"}}`), nil)
			l := r.blob(MediaTypeContent, archive(t, entry{name: "SKILL.md", body: skillMD}), nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": cfg, "layers": []ocispec.Descriptor{l}}, "1.0.0")
			return f.ref(t, "hostile/bigconfig:1.0.0")
		}, ErrIntegrity, "config is 1060 bytes, over the 512 byte limit"},
		{"config that is not JSON", func(t *testing.T) Reference {
			r := f.raw(t, "hostile/badconfig")
			cfg := r.blob(MediaTypeConfig, []byte("<html>"), nil)
			l := r.blob(MediaTypeContent, archive(t, entry{name: "SKILL.md", body: skillMD}), nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": cfg, "layers": []ocispec.Descriptor{l}}, "1.0.0")
			return f.ref(t, "hostile/badconfig:1.0.0")
		}, ErrNotSkill, "config is not valid JSON"},
		{"config name that is a path", func(t *testing.T) Reference {
			r := f.raw(t, "hostile/pathname")
			cfg := r.blob(MediaTypeConfig, []byte(`{"name":"../escaped","version":"1.0.0"}`), nil)
			l := r.blob(MediaTypeContent, archive(t, entry{name: "SKILL.md", body: skillMD}), nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": cfg, "layers": []ocispec.Descriptor{l}}, "1.0.0")
			return f.ref(t, "hostile/pathname:1.0.0")
		}, ErrNotSkill, `config names the skill "../escaped"`},
		{"skill artifact with a wrong layer type", func(t *testing.T) Reference {
			r := f.raw(t, "hostile/wronglayer")
			l := r.blob("text/html", []byte("<html>"), nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": emptyConfig(r), "layers": []ocispec.Descriptor{l}}, "1.0.0")
			return f.ref(t, "hostile/wronglayer:1.0.0")
		}, ErrNotSkill, "without a application/vnd.agentskills.skill.content.v1.tar+gzip layer"},
		{"content layer that is not an archive", func(t *testing.T) Reference {
			r := f.raw(t, "hostile/notar")
			l := r.blob(MediaTypeContent, bytes.Repeat([]byte("not a tarball "), 100), nil)
			r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ArtifactType, "config": emptyConfig(r), "layers": []ocispec.Descriptor{l}}, "1.0.0")
			return f.ref(t, "hostile/notar:1.0.0")
		}, ErrUnsafeArchive, "not a valid tar+gzip layer"},
		{"manifest served as the wrong media type", func(t *testing.T) Reference {
			f.srv.Hook(serveInstead("/manifests/1.0.0", good.ManifestJSON, ocispec.MediaTypeImageIndex))
			return f.ref(t, "org/skills/pdf:1.0.0")
		}, ErrNotSkill, "served as application/vnd.oci.image.index.v1+json"},
		{"unknown manifest media type", func(t *testing.T) Reference {
			f.srv.Hook(serveInstead("/manifests/1.0.0", []byte(`{"schemaVersion":2,"mediaType":"text/html"}`), "text/html"))
			return f.ref(t, "org/skills/pdf:1.0.0")
		}, ErrNotSkill, "unsupported manifest media type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer f.srv.Hook(nil)
			ref := tt.setup(t)
			parent := t.TempDir()
			out := filepath.Join(parent, "out")
			_, err := f.client.Pull(bg, ref, out, PullOptions{})
			if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Pull: %v; want %v containing %q", err, tt.wantIs, tt.wantMsg)
			}
			if tree := listTree(t, parent); len(tree) != 0 {
				t.Errorf("a failed pull left %q", tree)
			}
			if f.cache.Has(layer.Digest, -1) && !f.cache.Verify(layer) {
				t.Errorf("the cache holds a corrupt layer")
			}
		})
	}
}

// serveInstead answers GETs and HEADs of paths ending in suffix with
// body, labelled mediaType, and the digest header the client asked for.
func serveInstead(suffix string, body []byte, mediaType string) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, suffix) || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			return false
		}
		w.Header().Set("Content-Type", mediaType)
		if i := strings.LastIndex(suffix, "sha256:"); i >= 0 {
			w.Header().Set("Docker-Content-Digest", suffix[i:])
		}
		w.Header().Set("Content-Length", itoa(len(body)))
		if r.Method == http.MethodGet {
			w.Write(body)
		}
		return true
	}
}

func fetchBlob(t *testing.T, f *fixture, repo, d string) []byte {
	t.Helper()
	resp, err := http.Get(f.srv.URL + "/v2/" + repo + "/blobs/" + d)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return b.Bytes()
}
