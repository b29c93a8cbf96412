package manager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
)

// An install reads every pinned manifest to check the lock, then
// materialises the same pins: the second step uses what the first read
// (checked against its digest) and does not read the manifest again.
func TestMaterializeUsesTheManifestManifestRead(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	dir := filepath.Join(work, "pdf")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: pdf\ndescription: Extract text from PDFs. Use it on PDF files.\nversion: 1.2.0\n---\n# PDF\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg, err := registry.Pack(ctx, dir, registry.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pkg.Close()
	client := registry.NewClient(registry.Options{})
	layout := filepath.Join(work, "registry", "pdf")
	repo := "oci:" + layout
	ref, _ := registry.ParseReference(repo)
	pub, err := client.Publish(ctx, pkg, ref, registry.PublishOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs := &RegistrySource{Client: client}
	d := pub.Ref.Digest.String()
	rel, err := rs.Manifest(ctx, repo, d)
	if err != nil {
		t.Fatal(err)
	}
	// The manifest is gone from the repository: only the copy Manifest
	// read can answer now.
	blob := filepath.Join(layout, "blobs", "sha256", strings.TrimPrefix(d, "sha256:"))
	if err := os.Remove(blob); err != nil {
		t.Fatal(err)
	}
	s := lockfile.Skill{Name: "pdf", Version: "1.2.0", Repository: repo, Manifest: d, Content: rel.Content}
	if err := rs.Materialize(ctx, s, filepath.Join(work, "out1")); err != nil {
		t.Fatalf("Materialize after Manifest read the manifest again: %v", err)
	}
	if _, err := os.Stat(filepath.Join(work, "out1", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	// What Manifest read is used once: another Materialize reads the
	// repository, and finds the manifest missing.
	if err := rs.Materialize(ctx, s, filepath.Join(work, "out2")); err == nil {
		t.Fatal("a second Materialize succeeded without the manifest in the repository")
	}
}
