package sync_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/registry"
	skillsync "github.com/skillpm/skillpm/sync"
)

// Mirror a folder of OCI layouts into another, keeping only MIT-licensed
// skills. A registry prefix ("ghcr.io/acme/skills") works the same way.
func Example() {
	ctx := context.Background()
	work, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(work)
	client := registry.NewClient(registry.Options{})
	for name, license := range map[string]string{"pdf": "MIT", "gpl-tool": "GPL-3.0-only"} {
		dir := filepath.Join(work, "src", name)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: An example skill. Use it in examples.\nversion: 1.0.0\nlicense: "+license+"\n---\n# Example\n"), 0o644)
		pkg, err := registry.Pack(ctx, dir, registry.PackOptions{})
		if err != nil {
			log.Fatal(err)
		}
		repo, _ := registry.ParseReference("oci:" + filepath.Join(work, "upstream", name))
		if _, err := client.Publish(ctx, pkg, repo, registry.PublishOptions{}); err != nil {
			log.Fatal(err)
		}
		pkg.Close()
	}

	cfg := &skillsync.Config{
		From:   "oci:" + filepath.Join(work, "upstream"),
		To:     "oci:" + filepath.Join(work, "mirror"),
		Policy: skillsync.Policy{Lint: "error", Licenses: []string{"MIT"}},
	}
	rep, err := skillsync.Run(ctx, skillsync.Options{Config: cfg, Client: client})
	for _, it := range rep.Items {
		fmt.Println(strings.TrimSpace(fmt.Sprint(it.Action, " ", it.Repository, "@", it.Version, " ", it.Check)))
	}
	fmt.Println(err != nil)
	// Output:
	// rejected gpl-tool@1.0.0 license
	// copied pdf@1.0.0
	// true
}
