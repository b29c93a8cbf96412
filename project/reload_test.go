package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reload parses skills.yaml again only when it changed or m was edited.
func TestReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte("registry: r.example/s\nskills:\n  pdf: ^1.0.0 # keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := m.Reload(); err != nil || r != m {
		t.Fatalf("unchanged file: Reload = %p, %v; want m itself", r, err)
	}
	if err := os.WriteFile(path, []byte("registry: r.example/s\nskills:\n  pdf: ^2.0.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := m.Reload()
	if err != nil || r == m || r.Skills["pdf"].Constraint != "^2.0.0" {
		t.Fatalf("changed file: Reload = %+v, %v; want the new constraint", r, err)
	}
	// An edit (through the YAML tree, parsed lazily) keeps comments and
	// makes Reload read the file again.
	r.Set("docx", "^1.0.0")
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := Parse(data); err != nil || got.Skills["docx"].Constraint != "^1.0.0" || got.Skills["pdf"].Constraint != "^2.0.0" {
		t.Fatalf("edited manifest marshals to %q (%v)", data, err)
	}
	if r2, err := r.Reload(); err != nil || r2 == r || r2.Skills["docx"].Constraint != "" {
		t.Fatalf("edited manifest: Reload = %+v, %v; want the file's contents", r2, err)
	}
	// Comments survive the lazily parsed tree.
	os.WriteFile(path, []byte("# top\nskills:\n  pdf: ^1.0.0 # keep\n"), 0o644)
	m, _ = Load(dir)
	m.Set("docx", "^1.0.0")
	data, _ = m.Marshal()
	if want := "# top\n"; string(data[:len(want)]) != want || !strings.Contains(string(data), "# keep") {
		t.Errorf("comments lost: %q", data)
	}
	// Empty and syntax-error files read as before.
	os.WriteFile(path, nil, 0o644)
	if m, err := Load(dir); err != nil || len(m.Skills) != 0 {
		t.Errorf("empty skills.yaml: %v, %v", m, err)
	}
	os.WriteFile(path, []byte("skills: [\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "invalid YAML") {
		t.Errorf("syntax error: %v; want invalid YAML", err)
	}
}
