package registry

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"
)

// TestPullToolHive reads the committed ToolHive artifact from its OCI
// layout and from a registry it was copied to: the first platform's
// manifest is chosen, the labels give name, version, description,
// license and allowed tools, and the files are ToolHive's.
func TestPullToolHive(t *testing.T) {
	f := newFixture(t, Options{})
	abs, err := filepath.Abs(toolHiveLayout)
	if err != nil {
		t.Fatal(err)
	}
	src, err := oci.NewFromFS(bg, os.DirFS(abs))
	if err != nil {
		t.Fatal(err)
	}
	dst := f.raw(t, "toolhive/skills/toolhive-demo")
	idx, err := oras.Copy(bg, src, "1.0.0", dst.repo, "1.0.0", oras.DefaultCopyOptions)
	if err != nil {
		t.Fatal(err)
	}
	var firstManifest string
	{
		var index ocispec.Index
		readJSON(t, mustStore(t, abs), idx, &index)
		firstManifest = index.Manifests[0].Digest.String()
	}
	for _, ref := range []string{"oci:" + abs + ":1.0.0", f.srv.Host + "/toolhive/skills/toolhive-demo:1.0.0", f.srv.Host + "/toolhive/skills/toolhive-demo"} {
		t.Run(ref, func(t *testing.T) {
			r, err := ParseReference(ref)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			got, err := f.client.Pull(bg, r, out, PullOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Layout.Format != FormatToolHive || !strings.Contains(got.Layout.Note, "ToolHive") {
				t.Errorf("format %s note %q; want toolhive", got.Layout.Format, got.Layout.Note)
			}
			if got.Index == nil || got.Index.Digest != idx.Digest || got.Ref.Digest.String() != firstManifest {
				t.Errorf("index %v manifest %s; want index %s and its first manifest %s", got.Index, got.Ref.Digest, idx.Digest, firstManifest)
			}
			if got.Name() != "toolhive-demo" || got.Version() != "1.0.0" || got.Config.License != "Apache-2.0" ||
				!strings.HasPrefix(got.Config.Description, "Summarise a ToolHive") || !slices.Equal(got.Config.AllowedTools, []string{"Read", "Grep"}) {
				t.Errorf("config %+v; want the labels' name, version, license, description and tools", got.Config)
			}
			if tree := listTree(t, out); !slices.Equal(tree, []string{"SKILL.md", "references", "references/GUIDE.md"}) {
				t.Errorf("pulled %q", tree)
			}
			want, _ := os.ReadFile(filepath.Join(toolHiveSrc, "SKILL.md"))
			if gotMD, _ := os.ReadFile(filepath.Join(out, "SKILL.md")); string(gotMD) != string(want) {
				t.Errorf("SKILL.md differs from the source")
			}
		})
	}
}

func mustStore(t *testing.T, dir string) *oci.Store {
	t.Helper()
	s, err := oci.NewWithContext(bg, dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPullToolHiveHostile: labels and archives of ToolHive-shaped
// artifacts get the same checks as skillpm's own.
func TestPullToolHiveHostile(t *testing.T) {
	f := newFixture(t, Options{})
	good := archive(t, entry{name: "SKILL.md", body: skillMD})
	tests := []struct {
		name    string
		labels  string
		layer   []byte
		wantIs  error
		wantMsg string
	}{
		{"name that is a path", `{"dev.toolhive.skills.name":"../escaped"}`, good, ErrNotSkill, `names the skill "../escaped"`},
		{"no name label", `{"dev.toolhive.skills.version":"1.0.0"}`, good, ErrNotSkill, "no dev.toolhive.skills.name label"},
		{"allowed tools that are not JSON", `{"dev.toolhive.skills.name":"pdf","dev.toolhive.skills.allowedTools":"Read Grep"}`, good, ErrNotSkill, "not a JSON array"},
		{"label naming another skill than SKILL.md", `{"dev.toolhive.skills.name":"docx"}`, good, ErrNotSkill, `the artifact is the skill "docx", but its SKILL.md names the skill "pdf"`},
		{"archive escaping its folder", `{"dev.toolhive.skills.name":"pdf"}`, archive(t, entry{name: "SKILL.md", body: skillMD}, entry{name: "../../evil", body: "x"}), ErrUnsafeArchive, "evil"},
		{"archive with a symlink out", `{"dev.toolhive.skills.name":"pdf"}`, archive(t, entry{name: "SKILL.md", body: skillMD}, entry{name: "x", typ: '2', link: "/etc/passwd"}), ErrUnsafeArchive, "x"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "toolhive/hostile/s" + string(rune('a'+i))
			r := f.raw(t, name)
			cfg := r.blob(ocispec.MediaTypeImageConfig, []byte(`{"architecture":"amd64","os":"linux","config":{"Labels":`+tt.labels+`},"rootfs":{"type":"layers","diff_ids":[]}}`), nil)
			l := r.blob(ocispec.MediaTypeImageLayerGzip, tt.layer, map[string]string{ocispec.AnnotationTitle: "skill.tar.gz"})
			var entries []ocispec.Descriptor
			for _, arch := range []string{"amd64", "arm64"} {
				m := r.manifest(ocispec.MediaTypeImageManifest, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageManifest, "artifactType": ToolHiveArtifactType, "config": cfg, "layers": []ocispec.Descriptor{l}}, arch)
				m.Platform = &ocispec.Platform{OS: "linux", Architecture: arch}
				entries = append(entries, m)
			}
			r.manifest(ocispec.MediaTypeImageIndex, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex, "artifactType": ToolHiveArtifactType, "manifests": entries}, "1.0.0")
			parent := t.TempDir()
			_, err := f.client.Pull(bg, f.ref(t, name+":1.0.0"), filepath.Join(parent, "out"), PullOptions{})
			if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("Pull: %v; want %v containing %q", err, tt.wantIs, tt.wantMsg)
			}
			if tree := listTree(t, parent); len(tree) != 0 {
				t.Errorf("a failed pull left %q", tree)
			}
		})
	}
}

// TestPickPlatform: an index of platform builds is read through its
// first entry; one whose entries do not all name a platform is not.
func TestPickPlatform(t *testing.T) {
	amd := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: "sha256:aa", Platform: &ocispec.Platform{OS: "linux", Architecture: "amd64"}}
	arm := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: "sha256:bb", Platform: &ocispec.Platform{OS: "linux", Architecture: "arm64"}}
	bare := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: "sha256:cc"}
	if d, err := pickFromIndex(&manifestOrIndex{Manifests: []ocispec.Descriptor{arm, amd}}); err != nil || d.Digest != arm.Digest {
		t.Errorf("got %v, %v; want the first entry", d.Digest, err)
	}
	if _, err := pickFromIndex(&manifestOrIndex{Manifests: []ocispec.Descriptor{amd, bare}}); !errors.Is(err, ErrNotSkill) {
		t.Errorf("mixed index: %v; want ErrNotSkill", err)
	}
}
