package project

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

func TestSourceEntries(t *testing.T) {
	m, err := Parse([]byte(`skills:
  pdf: ^1.2
  docx:
    git: github.com/anthropics/skills
    path: skills/docx
    version: ^1.2
  main-only:
    git: https://example.com/r.git
    ref: main
  dev:
    local: ./skills/dev
  brand:
    wellknown: https://example.com/docs
`))
	if err != nil {
		t.Fatal(err)
	}
	for name, kind := range map[string]string{"pdf": KindOCI, "docx": KindGit, "main-only": KindGit, "dev": KindLocal, "brand": KindWellKnown} {
		if got := m.Skills[name].Kind(); got != kind {
			t.Errorf("%s: Kind() = %q; want %q", name, got, kind)
		}
	}
	src := m.Skills["docx"].GitSource()
	if src.URL != "https://github.com/anthropics/skills.git" || src.Subdir != "skills/docx" || src.Ref != "" {
		t.Errorf("docx GitSource = %+v", src)
	}
}

func TestSourceEntriesRefused(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"x:\n    git: github.com/a/b\n    version: ^1\n    ref: main", "has both version and ref"},
		{"x:\n    git: github.com/a/b\n    registry: ghcr.io/a", "more than one source"},
		{"x:\n    git: github.com/a/b\n    local: ./x", "more than one source"},
		{"x:\n    local: ./x\n    version: ^1", "a local folder has no versions"},
		{"x:\n    local: ../x", "must be a folder inside the project"},
		{"x:\n    local: /etc", "must be a folder inside the project"},
		{"x:\n    registry: ghcr.io/a\n    path: x", "path and ref go only with git"},
		{"x:\n    git: ext::sh -c evil", "not a repository URL"},
		{"x:\n    git: github.com/a/b\n    path: ../../x", "must be a folder inside the repository"},
		{"x:\n    git: github.com/a/b@v1", "names a ref"},
		{"x:\n    git: github.com/a/b\n    ref: --upload-pack=evil", "not a valid git ref"},
		{"x:\n    git: github.com/a/b\n    tag: v1", `unknown key "tag"`},
		{"x:\n    git: ftp://host/r", "scheme"},
	} {
		_, err := Parse([]byte("skills:\n  " + tc.yaml + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v; want it to say %q", tc.yaml, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), `skill "x"`) && !strings.Contains(err.Error(), "unknown key") {
			t.Errorf("%q: error %v does not name the skill", tc.yaml, err)
		}
	}
}

// A project of OCI skills keeps its inputs digest: locks written before
// sources existed are not stale.
func TestInputsDigestOCIUnchanged(t *testing.T) {
	m, err := Parse([]byte("registry: oci:./registry\nskills:\n  pdf: ^1.2\n"))
	if err != nil {
		t.Fatal(err)
	}
	const before = "sha256:"
	if d := m.InputsDigest(); !strings.HasPrefix(d, before) || d != oldDigest(m) {
		t.Errorf("InputsDigest = %s; want %s", d, oldDigest(m))
	}
	g, _ := Parse([]byte("skills:\n  pdf:\n    git: github.com/a/b\n    ref: main\n"))
	h, _ := Parse([]byte("skills:\n  pdf:\n    git: github.com/a/b\n    ref: dev\n"))
	if g.InputsDigest() == h.InputsDigest() {
		t.Error("a changed ref does not change the inputs digest")
	}
}

func TestSetSource(t *testing.T) {
	m, _ := Parse([]byte("# mine\nskills:\n  pdf: ^1.2 # keep\n"))
	m.SetSource("docx", Want{Git: "github.com/a/b", Path: "skills/docx", Constraint: "^1.0.0"})
	m.SetSource("dev", Want{Local: "./skills/dev"})
	out, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := "# mine\nskills:\n  pdf: ^1.2 # keep\n  docx:\n    git: github.com/a/b\n    path: skills/docx\n    version: \"^1.0.0\"\n  dev:\n    local: ./skills/dev\n"
	if string(out) != want {
		t.Errorf("Marshal =\n%s\nwant\n%s", out, want)
	}
	if _, err := Parse(out); err != nil {
		t.Errorf("re-parse: %v", err)
	}
}

// oldDigest is InputsDigest as it was computed before sources existed.
func oldDigest(m *Manifest) string {
	type want struct{ Name, Constraint, Registry string }
	in := struct {
		Registry    string
		Prereleases bool
		Skills      []want
	}{Registry: m.Registry, Prereleases: m.Prereleases}
	for _, n := range m.Names() {
		in.Skills = append(in.Skills, want{n, m.Skills[n].constraint(), m.Skills[n].Registry})
	}
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
