package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const withComments = `# the project's skills
registry: oci:./registry # a folder, no server
targets: [.claude/skills]
skills:
  # PDFs, for the reports
  pdf: ^1.2
  other:
    version: ~2.0
    registry: ghcr.io/acme/skills
`

func TestEditsKeepComments(t *testing.T) {
	m, err := Parse([]byte(withComments))
	if err != nil {
		t.Fatal(err)
	}
	m.Set("slugify", "^1.0.0")
	m.Set("pdf", "^1.3")
	m.Set("other", "~2.1")
	if !m.Remove("other") {
		t.Fatal("Remove(other) = false")
	}
	if m.Remove("missing") {
		t.Error("Remove(missing) = true")
	}
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# the project's skills", "# PDFs, for the reports", "# a folder, no server", `pdf: "^1.3"`, `slugify: "^1.0.0"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "other") {
		t.Errorf("removed skill still present:\n%s", out)
	}
	again, err := Parse(out)
	if err != nil {
		t.Fatalf("re-parse: %v", err)
	}
	if got := again.Skills["pdf"].Constraint; got != "^1.3" {
		t.Errorf("pdf = %q; want ^1.3", got)
	}
}

func TestInputsDigest(t *testing.T) {
	a, _ := Parse([]byte(withComments))
	b, _ := Parse([]byte(strings.Replace(withComments, "targets: [.claude/skills]", "targets: [.agents/skills]", 1)))
	if a.InputsDigest() != b.InputsDigest() {
		t.Error("targets changed the inputs digest; they should not")
	}
	a.Set("pdf", "^2")
	if a.InputsDigest() == b.InputsDigest() {
		t.Error("a new constraint did not change the inputs digest")
	}
}

func TestRegistryFor(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte(withComments), 0o644)
	m, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.Abs(m.RegistryFor("pdf")+"/pdf"), "oci:"+filepath.Join(dir, "registry/pdf"); got != want {
		t.Errorf("RegistryFor(pdf) = %q; want %q", got, want)
	}
	if got, want := m.RegistryFor("other"), "ghcr.io/acme/skills"; got != want {
		t.Errorf("RegistryFor(other) = %q; want %q", got, want)
	}
	if got, want := m.Abs("ghcr.io/acme/skills/other"), "ghcr.io/acme/skills/other"; got != want {
		t.Errorf("Abs of a remote repository = %q; want it unchanged", got)
	}
}

func TestParseErrors(t *testing.T) {
	for name, body := range map[string]string{
		"constraint": "skills:\n  pdf: '>>1'\n",
		"unknown":    "registy: x\n",
		"target":     "targets: [../outside]\n",
		"entry":      "skills:\n  pdf: [1]\n",
		"escape":     "skills:\n  ../../evil: '*'\n",
	} {
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("%s: Parse succeeded", name)
		}
	}
	if _, err := Load(t.TempDir()); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load of empty dir: err = %v; want ErrNotFound", err)
	}
}
