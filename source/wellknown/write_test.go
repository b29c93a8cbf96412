package wellknown

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func writeSkillDir(t *testing.T, dir, name string, extra map[string]string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	files := map[string]string{"SKILL.md": skillMD(name)}
	for k, v := range extra {
		files[k] = v
	}
	for f, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(p, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, f), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// Write's tree, served as it is, reads back through the client.
func TestWriteReadBack(t *testing.T) {
	src := t.TempDir()
	pdf := writeSkillDir(t, src, "pdf", map[string]string{"scripts/run.sh": "echo hi\n"})
	notes := writeSkillDir(t, src, "notes", nil)
	root := t.TempDir()
	idx, err := Write(context.Background(), root, []string{pdf, notes}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Skills) != 2 || idx.Skills[0].Type != TypeSkillMD || idx.Skills[1].Type != TypeArchive {
		t.Fatalf("index = %+v; want notes as skill-md, pdf as archive", idx.Skills)
	}
	raw, err := os.ReadFile(filepath.Join(root, ".well-known", "agent-skills", "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil || doc["$schema"] != SchemaURI {
		t.Fatalf("index.json = %s (%v); want the 0.2.0 schema", raw, err)
	}

	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	defer srv.Close()
	c := newClient(t)
	got, err := c.Index(context.Background(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, e := range got.Skills {
		if err := c.Export(context.Background(), e, filepath.Join(out, e.Name)); err != nil {
			t.Fatalf("export %s: %v", e.Name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(out, "pdf", "scripts", "run.sh")); err != nil || string(b) != "echo hi\n" {
		t.Errorf("pdf/scripts/run.sh = %q, %v", b, err)
	}
	if got.Skills[1].Version != "1.2.0" {
		t.Errorf("version = %q; want the frontmatter's 1.2.0", got.Skills[1].Version)
	}

	// Reproducible: writing again gives the same bytes.
	root2 := t.TempDir()
	if _, err := Write(context.Background(), root2, []string{notes, pdf}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	raw2, _ := os.ReadFile(filepath.Join(root2, ".well-known", "agent-skills", "index.json"))
	if !bytes.Equal(raw, raw2) {
		t.Errorf("a second export differs:\n%s\n%s", raw, raw2)
	}
}

func TestWriteRefuses(t *testing.T) {
	src := t.TempDir()
	a := writeSkillDir(t, src, "pdf", nil)
	b := writeSkillDir(t, filepath.Join(src, "other"), "pdf", nil)
	root := t.TempDir()
	if _, err := Write(context.Background(), root, []string{a, b}, WriteOptions{}); !errors.Is(err, ErrExportSource) {
		t.Errorf("two skills named pdf: %v; want ErrExportSource", err)
	}
	if _, err := Write(context.Background(), root, []string{src}, WriteOptions{}); !errors.Is(err, ErrExportSource) {
		t.Errorf("a folder without SKILL.md: %v; want ErrExportSource", err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, ".well-known")); len(entries) != 0 {
		t.Errorf("a failed Write left %v", entries)
	}
}

// A .well-known link in the output folder (a checkout may carry one) is
// refused before anything is written through it; so is a file there.
func TestWriteRefusesLinkedTarget(t *testing.T) {
	a := writeSkillDir(t, t.TempDir(), "pdf", nil)
	elsewhere := t.TempDir()
	root := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(root, ".well-known")); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(context.Background(), root, []string{a}, WriteOptions{}); !errors.Is(err, ErrLinkedTarget) {
		t.Errorf("a linked .well-known: %v; want ErrLinkedTarget", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("Write wrote through the link: %v", entries)
	}
	root2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(root2, ".well-known"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(context.Background(), root2, []string{a}, WriteOptions{}); !errors.Is(err, ErrLinkedTarget) {
		t.Errorf("a file named .well-known: %v; want ErrLinkedTarget", err)
	}
}
