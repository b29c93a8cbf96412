package registry

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"
)

// TestCollectionRoundTrip publishes a collection of a skillpm skill and
// a ToolHive skill from other repositories, reads it back, and checks
// that each pinned manifest is in the collection's repository.
func TestCollectionRoundTrip(t *testing.T) {
	f := newFixture(t, Options{})
	pdf := f.publish(t, "pdf", "1.2.0", nil)
	abs, _ := filepath.Abs(toolHiveLayout)
	src, err := oci.NewFromFS(bg, os.DirFS(abs))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := oras.Copy(bg, src, "1.0.0", f.raw(t, "toolhive/skills/toolhive-demo").repo, "1.0.0", oras.DefaultCopyOptions); err != nil {
		t.Fatal(err)
	}
	th, err := f.client.Resolve(bg, f.ref(t, "toolhive/skills/toolhive-demo:1.0.0"))
	if err != nil {
		t.Fatal(err)
	}
	col, err := f.client.PublishCollection(bg, "starter", f.ref(t, "org/collections/starter:1.0.0"),
		[]Reference{f.ref(t, "toolhive/skills/toolhive-demo:1.0.0"), f.ref(t, "org/skills/pdf:1.2.0")})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := f.client.ReadCollection(bg, f.ref(t, "org/collections/starter:1.0.0"))
	if err != nil || !ok {
		t.Fatalf("ReadCollection: %v, %v", ok, err)
	}
	if got.Name != "starter" || got.Ref.Digest != col.Ref.Digest || len(got.Members) != 2 {
		t.Fatalf("read %+v; want starter at %s with 2 skills", got, col.Ref.Digest)
	}
	want := []Member{
		{Name: "pdf", Version: "1.2.0", Repository: f.srv.Host + "/org/skills/pdf", Manifest: ocispec.Descriptor{Digest: pdf.Ref.Digest}},
		{Name: "toolhive-demo", Version: "1.0.0", Repository: f.srv.Host + "/toolhive/skills/toolhive-demo", Manifest: ocispec.Descriptor{Digest: th.Ref.Digest}},
	}
	for i, m := range got.Members {
		w := want[i]
		if m.Name != w.Name || m.Version != w.Version || m.Repository != w.Repository || m.Manifest.Digest != w.Manifest.Digest {
			t.Errorf("member %d: %+v; want %+v", i, m, w)
		}
		if err := f.client.CheckMember(bg, m); err != nil {
			t.Errorf("CheckMember(%s): %v", m.Name, err)
		}
		// The pinned manifest is readable from the collection's own
		// repository.
		res, err := f.client.Resolve(bg, f.ref(t, "org/collections/starter@"+m.Manifest.Digest.String()))
		if err != nil || res.Name() != m.Name {
			t.Errorf("resolve %s in the collection's repository: %v", m.Name, err)
		}
	}
	// A collection is not a skill: pulling it says what to do.
	_, err = f.client.Pull(bg, f.ref(t, "org/collections/starter:1.0.0"), filepath.Join(t.TempDir(), "out"), PullOptions{})
	if !errors.Is(err, ErrNotSkill) || !strings.Contains(err.Error(), "collection of 2 skills") {
		t.Errorf("Pull of a collection: %v", err)
	}
	// A skill is not a collection.
	if _, ok, err := f.client.ReadCollection(bg, f.ref(t, "org/skills/pdf:1.2.0")); ok || err != nil {
		t.Errorf("ReadCollection of a skill: %v, %v; want not a collection", ok, err)
	}
	// A moved tag is caught.
	f.publishForce(t, "pdf", "1.2.0")
	if err := f.client.CheckMember(bg, got.Members[0]); !errors.Is(err, ErrIntegrity) {
		t.Errorf("CheckMember after the tag moved: %v; want ErrIntegrity", err)
	}
	// Two skills of one name are refused.
	if _, err := f.client.PublishCollection(bg, "dup", f.ref(t, "org/collections/dup:1"), []Reference{f.ref(t, "org/skills/pdf:1.2.0"), f.ref(t, "org/skills/pdf:1.2.0")}); err == nil || !strings.Contains(err.Error(), `both hold the skill "pdf"`) {
		t.Errorf("duplicate skill: %v", err)
	}
}

func (f *fixture) publishForce(t *testing.T, name, version string) {
	t.Helper()
	dir := writeSkill(t, t.TempDir(), name, version, map[string]string{"moved.md": "moved"})
	p, err := Pack(bg, dir, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if _, err := f.client.Publish(bg, p, f.ref(t, "org/skills/"+name), PublishOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
}

// TestReadCollectionHostile: entries that could lead add astray are
// refused with the entry named.
func TestReadCollectionHostile(t *testing.T) {
	f := newFixture(t, Options{})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	res, err := f.client.Resolve(bg, pub.Ref)
	if err != nil {
		t.Fatal(err)
	}
	size := int64(len(res.ManifestJSON))
	entry := func(name, version, repo string) ocispec.Descriptor {
		return ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: pub.Ref.Digest, Size: size,
			Annotations: map[string]string{AnnotationSkillName: name, ocispec.AnnotationVersion: version, AnnotationSkillRepository: repo}}
	}
	repo := f.srv.Host + "/org/skills/pdf"
	tests := []struct {
		name    string
		entries []ocispec.Descriptor
		wantMsg string
	}{
		{"name that is a path", []ocispec.Descriptor{entry("../pdf", "1.0.0", repo)}, `names the skill "../pdf"`},
		{"listed twice", []ocispec.Descriptor{entry("pdf", "1.0.0", repo), entry("pdf", "1.0.0", repo)}, "listed twice"},
		{"version that is not semver", []ocispec.Descriptor{entry("pdf", "latest", repo)}, `version "latest"`},
		{"repository of another skill", []ocispec.Descriptor{entry("pdf", "1.0.0", f.srv.Host+"/org/skills/evil")}, "last segment is the skill's name"},
		{"repository with a tag", []ocispec.Descriptor{entry("pdf", "1.0.0", repo+":2.0.0")}, "last segment"},
		{"remote collection naming a local folder", []ocispec.Descriptor{entry("pdf", "1.0.0", "oci:/tmp/somewhere/pdf")}, "a local folder"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := "org/collections/c" + string(rune('a'+i))
			r := f.raw(t, name)
			for _, e := range tt.entries {
				// An index may list only manifests of its repository.
				if err := oras.CopyGraph(bg, f.raw(t, "org/skills/pdf").repo, r.repo, ocispec.Descriptor{MediaType: e.MediaType, Digest: e.Digest, Size: e.Size}, oras.DefaultCopyGraphOptions); err != nil {
					t.Fatal(err)
				}
			}
			r.manifest(ocispec.MediaTypeImageIndex, map[string]any{"schemaVersion": 2, "mediaType": ocispec.MediaTypeImageIndex, "artifactType": ArtifactTypeCollection,
				"manifests": tt.entries, "annotations": map[string]string{AnnotationCollectionName: "c"}}, "1")
			_, ok, err := f.client.ReadCollection(bg, f.ref(t, name+":1"))
			if !ok || !errors.Is(err, ErrNotSkill) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("ReadCollection: %v, %v; want ErrNotSkill containing %q", ok, err, tt.wantMsg)
			}
		})
	}
}

// TestCollectionLayouts: skills and collections in OCI layout folders
// (oci:PATH, one repository each).
func TestCollectionLayouts(t *testing.T) {
	f := newFixture(t, Options{})
	dir := t.TempDir()
	var skills []Reference
	for _, name := range []string{"pdf", "notes"} {
		p, err := Pack(bg, writeSkill(t, t.TempDir(), name, "1.0.0", nil), PackOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := ParseReference("oci:" + filepath.Join(dir, "registry", name))
		if _, err := f.client.Publish(bg, p, ref, PublishOptions{}); err != nil {
			t.Fatal(err)
		}
		p.Close()
		skills = append(skills, ref.WithTag("1.0.0"))
	}
	colRef, _ := ParseReference("oci:" + filepath.Join(dir, "collections", "kit") + ":2.0.0")
	if _, err := f.client.PublishCollection(bg, "kit", colRef, skills); err != nil {
		t.Fatal(err)
	}
	col, ok, err := f.client.ReadCollection(bg, colRef)
	if err != nil || !ok || len(col.Members) != 2 {
		t.Fatalf("ReadCollection: %v %v %+v", ok, err, col)
	}
	for _, m := range col.Members {
		if m.Repository != "oci:"+filepath.Join(dir, "registry", m.Name) {
			t.Errorf("%s: repository %s", m.Name, m.Repository)
		}
		if err := f.client.CheckMember(bg, m); err != nil {
			t.Errorf("CheckMember(%s): %v", m.Name, err)
		}
	}
}
