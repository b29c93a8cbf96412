package registry_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/registry"
)

// Pack a skill folder, publish it to an OCI image layout folder (no
// server needed) and pull it back.
func Example() {
	ctx := context.Background()
	work, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(work)
	dir := filepath.Join(work, "pdf")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pdf\ndescription: Extract text from PDFs. Use it on PDF files.\nversion: 1.2.0\n---\n# PDF\n"), 0o644)

	pkg, err := registry.Pack(ctx, dir, registry.PackOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer pkg.Close()

	client := registry.NewClient(registry.Options{})
	repo, _ := registry.ParseReference("oci:" + filepath.Join(work, "registry", "pdf"))
	if _, err := client.Publish(ctx, pkg, repo, registry.PublishOptions{}); err != nil {
		log.Fatal(err)
	}
	pulled, err := client.Pull(ctx, repo, filepath.Join(work, "out"), registry.PullOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pulled.Name(), pulled.Version(), pulled.Layout.Format)
	// Output: pdf 1.2.0 agent-skills
}
