package bundle_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/bundle"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
)

// Export a lock's skills into a tarball, then install one of them from
// it with no registry at all.
func Example() {
	ctx := context.Background()
	work, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(work)
	client := registry.NewClient(registry.Options{})
	dir := filepath.Join(work, "pdf")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pdf\ndescription: Extract text from PDFs. Use it on PDF files.\nversion: 1.2.0\n---\n# PDF\n"), 0o644)
	pkg, err := registry.Pack(ctx, dir, registry.PackOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer pkg.Close()
	repo, _ := registry.ParseReference("oci:" + filepath.Join(work, "registry", "pdf"))
	if _, err := client.Publish(ctx, pkg, repo, registry.PublishOptions{}); err != nil {
		log.Fatal(err)
	}
	lock := &lockfile.File{Skills: []lockfile.Skill{{
		Name: "pdf", Version: "1.2.0", Repository: repo.Repo(),
		Manifest: pkg.Manifest.Digest.String(), Content: pkg.Layer.Digest.String(),
	}}}

	tarball := filepath.Join(work, "skills.tar")
	if _, err := bundle.Export(ctx, client, lock, tarball, bundle.ExportOptions{}); err != nil {
		log.Fatal(err)
	}
	os.RemoveAll(filepath.Join(work, "registry")) // across the air gap

	src, err := bundle.Open(client, tarball, "")
	if err != nil {
		log.Fatal(err)
	}
	defer src.Close()
	if err := src.Materialize(ctx, lock.Skills[0], filepath.Join(work, "installed", "pdf")); err != nil {
		log.Fatal(err)
	}
	_, err = os.Stat(filepath.Join(work, "installed", "pdf", "SKILL.md"))
	fmt.Println(err == nil)
	// Output: true
}
