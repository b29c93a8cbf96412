package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry"
)

// publishLayout publishes a skill folder into the layout folder
// prefix/NAME and returns the folder.
func publishLayout(t *testing.T, c *registry.Client, prefix, name, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: "+name+"\ndescription: Test skill "+name+". Use it in tests.\nversion: 1.0.0\n---\n\n"+body+"\n"), 0o644)
	p, err := registry.Pack(bg, dir, registry.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ref, _ := registry.ParseReference(prefix + "/" + name)
	if _, err := c.Publish(bg, p, ref, registry.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMatchAndCheck: a hand copy of a published skill is matched to its
// version and checks out; an edited copy is neither.
func TestMatchAndCheck(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	prefix := "oci:" + filepath.Join(t.TempDir(), "registry")
	src := publishLayout(t, c, prefix, "pdf", "Fill the form.")
	root := t.TempDir()
	copyDir := func(name string) {
		os.MkdirAll(filepath.Join(root, ".claude/skills", name), 0o755)
		data, _ := os.ReadFile(filepath.Join(src, "SKILL.md"))
		os.WriteFile(filepath.Join(root, ".claude/skills", name, "SKILL.md"), data, 0o644)
	}
	copyDir("pdf")
	p := &Proposal{Name: "pdf", Kind: KindNone, Folders: []Folder{{Path: ".claude/skills/pdf"}}}
	ok, err := Match(bg, c, root, prefix, p)
	if err != nil || !ok || p.Kind != KindOCI || p.Entry != (Entry{Registry: prefix, Version: "1.0.0"}) {
		t.Fatalf("Match: %v %v %+v", ok, err, p)
	}
	if ok, err := Check(bg, c, root, t.TempDir(), p); err != nil || !ok || p.Folders[0].Status != StatusMatches {
		t.Fatalf("Check of an exact copy: %v %v %+v", ok, err, p.Folders)
	}
	// Edited: no match, and Check says it differs.
	os.WriteFile(filepath.Join(root, ".claude/skills/pdf/SKILL.md"), []byte("---\nname: pdf\ndescription: Edited. Use it in tests.\n---\n"), 0o644)
	q := &Proposal{Name: "pdf", Kind: KindNone, Folders: []Folder{{Path: ".claude/skills/pdf"}}}
	if ok, err := Match(bg, c, root, prefix, q); err != nil || ok || !strings.Contains(strings.Join(q.Notes, " "), "no version of") {
		t.Fatalf("Match of an edited copy: %v %v %+v", ok, err, q)
	}
	p.Folders[0].Status = ""
	if ok, err := Check(bg, c, root, t.TempDir(), p); err != nil || ok || p.Folders[0].Status != StatusDiffers {
		t.Fatalf("Check of an edited copy: %v %v %+v", ok, err, p.Folders)
	}
	// A name the registry does not have is no match, and no error.
	copyDir("notes")
	r := &Proposal{Name: "notes", Kind: KindNone, Folders: []Folder{{Path: ".claude/skills/notes"}}}
	if ok, err := Match(bg, c, root, prefix, r); err != nil || ok {
		t.Fatalf("Match of an unpublished name: %v %v", ok, err)
	}
}
