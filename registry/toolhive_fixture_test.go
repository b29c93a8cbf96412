package registry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"gopkg.in/yaml.v3"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"
)

var update = flag.Bool("update", false, "rewrite the committed peer fixtures under ../testdata/peers")

// The ToolHive fixture: ../testdata/peers/toolhive/layout is an OCI
// layout holding ../testdata/peers/toolhive/src/toolhive-demo packaged
// the way "thv skill build" packages a skill (toolhive-core's
// oci/skills Packager, read, not copied): a reproducible tar (PAX
// headers, files only, SKILL.md first then sorted, mode 0644, epoch 0)
// gzipped at best compression with an empty header and OS 255; per
// platform an ocispec.Image config whose labels carry the frontmatter
// and a manifest of artifactType dev.toolhive.skills.v1 with the layer
// titled skill.tar.gz; an index over both platforms carrying the
// manifest's annotations. It is tagged 1.0.0 ("thv skill build --tag").
const (
	toolHiveSrc    = "../testdata/peers/toolhive/src/toolhive-demo"
	toolHiveLayout = "../testdata/peers/toolhive/layout"
)

// TestToolHiveFixture rebuilds the committed layout with -update, and
// always checks that it has ToolHive's shape.
func TestToolHiveFixture(t *testing.T) {
	if *update {
		buildToolHiveLayout(t, toolHiveSrc, toolHiveLayout, "1.0.0")
	}
	store, err := oci.NewWithContext(bg, toolHiveLayout)
	if err != nil {
		t.Fatal(err)
	}
	idxDesc, err := store.Resolve(bg, "1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	var idx ocispec.Index
	readJSON(t, store, idxDesc, &idx)
	if idx.MediaType != ocispec.MediaTypeImageIndex || idx.ArtifactType != ToolHiveArtifactType || len(idx.Manifests) != 2 {
		t.Fatalf("index %s / %s with %d manifests; want an image index of %s over 2 platforms", idx.MediaType, idx.ArtifactType, len(idx.Manifests), ToolHiveArtifactType)
	}
	var layers []digest.Digest
	for _, d := range idx.Manifests {
		if d.Platform == nil || d.Platform.OS != "linux" {
			t.Fatalf("index entry %s has platform %v; want linux/*", d.Digest, d.Platform)
		}
		var m ocispec.Manifest
		readJSON(t, store, d, &m)
		if m.ArtifactType != ToolHiveArtifactType || m.Config.MediaType != ocispec.MediaTypeImageConfig || len(m.Layers) != 1 ||
			m.Layers[0].MediaType != ocispec.MediaTypeImageLayerGzip || m.Layers[0].Annotations[ocispec.AnnotationTitle] != "skill.tar.gz" {
			t.Fatalf("manifest %s is not ToolHive's shape: %+v", d.Digest, m)
		}
		var img ocispec.Image
		readJSON(t, store, m.Config, &img)
		if img.Config.Labels[toolHiveLabelName] != "toolhive-demo" || img.Architecture != d.Platform.Architecture {
			t.Fatalf("config of %s: labels %v, architecture %s", d.Platform.Architecture, img.Config.Labels, img.Architecture)
		}
		layers = append(layers, m.Layers[0].Digest)
	}
	if layers[0] != layers[1] {
		t.Errorf("platforms carry different layers %v; ToolHive shares one", layers)
	}
}

func readJSON(t *testing.T, store *oci.Store, d ocispec.Descriptor, v any) {
	t.Helper()
	data, err := content.FetchAll(bg, store, d)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatal(err)
	}
}

// buildToolHiveLayout writes src, packaged as ToolHive packages skills,
// into a fresh OCI layout at dst, tagged tag.
func buildToolHiveLayout(t *testing.T, src, dst, tag string) {
	t.Helper()
	if err := os.RemoveAll(dst); err != nil {
		t.Fatal(err)
	}
	store, err := oci.NewWithContext(bg, dst)
	if err != nil {
		t.Fatal(err)
	}
	// Its layout index.json is not reproducible byte for byte; the
	// artifact in it is.
	store.AutoSaveIndex = true
	files := map[string][]byte{}
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var fm struct {
		Name         string `yaml:"name"`
		Description  string `yaml:"description"`
		Version      string `yaml:"version"`
		License      string `yaml:"license"`
		AllowedTools string `yaml:"allowed-tools"`
	}
	parts := strings.SplitN(string(files["SKILL.md"]), "---", 3)
	if err := yaml.Unmarshal([]byte(parts[1]), &fm); err != nil {
		t.Fatal(err)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	epoch := time.Unix(0, 0).UTC()
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	for _, p := range paths {
		hdr := &tar.Header{Name: p, Size: int64(len(files[p])), Mode: 0o644, ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		tw.Write(files[p])
	}
	tw.Close()
	var gzBuf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gzBuf, gzip.BestCompression)
	zw.ModTime, zw.OS = epoch, 255
	zw.Write(tarBuf.Bytes())
	zw.Close()
	push := func(mediaType string, data []byte) ocispec.Descriptor {
		d := content.NewDescriptorFromBytes(mediaType, data)
		if err := store.Push(bg, d, bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		return d
	}
	layer := push(ocispec.MediaTypeImageLayerGzip, gzBuf.Bytes())
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: "skill.tar.gz"}
	tools, _ := json.Marshal(strings.Fields(fm.AllowedTools))
	fileList, _ := json.Marshal(paths)
	ann := map[string]string{
		ocispec.AnnotationCreated: epoch.Format(time.RFC3339),
		toolHiveLabelName:         fm.Name,
		toolHiveLabelDescription:  fm.Description,
		toolHiveLabelVersion:      fm.Version,
	}
	var entries []ocispec.Descriptor
	for _, arch := range []string{"amd64", "arm64"} {
		img := ocispec.Image{
			Created:  &epoch,
			Platform: ocispec.Platform{OS: "linux", Architecture: arch},
			Config: ocispec.ImageConfig{Labels: map[string]string{
				toolHiveLabelName: fm.Name, toolHiveLabelDescription: fm.Description, toolHiveLabelVersion: fm.Version,
				toolHiveLabelAllowedTools: string(tools), toolHiveLabelLicense: fm.License, "dev.toolhive.skills.files": string(fileList),
			}},
			RootFS:  ocispec.RootFS{Type: "layers", DiffIDs: []digest.Digest{digest.FromBytes(tarBuf.Bytes())}},
			History: []ocispec.History{{Created: &epoch, CreatedBy: "toolhive package"}},
		}
		cfgJSON, _ := json.Marshal(img)
		cfg := push(ocispec.MediaTypeImageConfig, cfgJSON)
		m, _ := json.Marshal(ocispec.Manifest{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageManifest,
			ArtifactType: ToolHiveArtifactType, Config: cfg, Layers: []ocispec.Descriptor{layer}, Annotations: ann})
		md := push(ocispec.MediaTypeImageManifest, m)
		md.Platform = &ocispec.Platform{OS: "linux", Architecture: arch}
		entries = append(entries, md)
	}
	idx, _ := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex,
		ArtifactType: ToolHiveArtifactType, Manifests: entries, Annotations: ann})
	if err := store.Tag(bg, push(ocispec.MediaTypeImageIndex, idx), tag); err != nil {
		t.Fatal(err)
	}
}
