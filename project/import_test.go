package project

import (
	"strings"
	"testing"
)

func TestSetSource(t *testing.T) {
	m, err := Parse([]byte("# team skills\nregistry: ghcr.io/acme/skills\nskills:\n  pdf: ^1.2 # keep\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetSource("docx", map[string]string{"git": "github.com/anthropics/skills", "path": "skills/docx", "ref": "0123456789abcdef0123456789abcdef01234567"}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetSource("brand", map[string]string{"wellknown": "https://example.com"}); err != nil {
		t.Fatal(err)
	}
	if err := m.SetSource("x", map[string]string{"url": "y"}); err == nil {
		t.Error("an unknown key was accepted")
	}
	if err := m.SetSource("../x", map[string]string{"local": "y"}); err == nil {
		t.Error("a name that is a path was accepted")
	}
	data, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `# team skills
registry: ghcr.io/acme/skills
skills:
  pdf: ^1.2 # keep
  docx:
    git: github.com/anthropics/skills
    path: skills/docx
    ref: 0123456789abcdef0123456789abcdef01234567
  brand:
    wellknown: https://example.com
`
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
	if !strings.Contains(string(data), "# keep") {
		t.Error("comment lost")
	}
}
