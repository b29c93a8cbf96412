package indexer

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/registry"
)

// publish packs a skill and publishes it into the layout folder reg.
func publish(t *testing.T, client *registry.Client, reg, name, version, desc string) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), name)
	os.MkdirAll(dir, 0o755)
	md := "---\nname: " + name + "\ndescription: " + desc + "\nversion: " + version + "\n---\n# " + name + "\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	pkg, err := registry.Pack(ctx, dir, registry.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pkg.Close()
	repo, err := registry.ParseReference("oci:" + filepath.Join(reg, name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Publish(ctx, pkg, repo, registry.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestRefresh(t *testing.T) {
	ctx := context.Background()
	client := registry.NewClient(registry.Options{})
	reg := filepath.Join(t.TempDir(), "registry")
	publish(t, client, reg, "pdf", "1.0.0", "Extract text from PDF files.")
	publish(t, client, reg, "pdf", "1.2.0", "Extract text from PDF files, faster.")
	publish(t, client, reg, "pdf", "2.0.0-beta.1", "A prerelease.")
	publish(t, client, reg, "notes", "0.1.0", "Write release notes.")
	prefix, err := registry.ParseReference("oci:" + reg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), index.FileName)

	// Listed through the layout folder: the newest stable version of each.
	res, err := Refresh(ctx, client, Options{Registries: []Registry{{Prefix: prefix}}, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range res.Entries {
		got[e.Name] = e.Version
	}
	if len(got) != 2 || got["pdf"] != "1.2.0" || got["notes"] != "0.1.0" {
		t.Errorf("indexed %v; want pdf 1.2.0 and notes 0.1.0", got)
	}
	hits, err := index.Search(path, "pdf", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Name != "pdf" || !strings.Contains(hits[0].Description, "faster") {
		t.Errorf("search pdf = %+v; want the 1.2.0 entry", hits)
	}

	// Named repositories: one that holds no skill is skipped.
	res, err = Refresh(ctx, client, Options{Registries: []Registry{{Prefix: prefix, Repositories: []string{"notes", "missing"}}}, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Entries) != 1 || res.Entries[0].Name != "notes" {
		t.Errorf("named repositories indexed %+v; want notes alone", res.Entries)
	}
}
