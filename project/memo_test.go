package project

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// LoadMemo gives what Load gives, from the memo for the same bytes, and
// parses (and refuses) any other bytes afresh.
func TestLoadMemo(t *testing.T) {
	dir, memos := t.TempDir(), t.TempDir()
	yml := `# the project
registry: ghcr.io/acme/skills
agents: [claude-code, codex]
targets: [.claude/skills, .windsurf/skills]
prereleases: true
policy: trust.yaml
tools:
  sandbox: strict
  env:
    pdf: [PDF_MODE]
skills:
  pdf: ^1.2
  docx: {version: ~1.0, registry: ghcr.io/other/skills}
  brand: {wellknown: https://example.com/docs}
  dev: {local: ./skills/dev}
  git-one: {git: github.com/acme/skills, path: skills/one, ref: main}
`
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	public := func(m *Manifest) Manifest {
		c := *m
		c.doc, c.src, c.memoDir = nil, nil, ""
		return c
	}
	for _, run := range []string{"cold", "warm"} {
		got, err := LoadMemo(dir, memos)
		if err != nil || !reflect.DeepEqual(public(got), public(want)) || got.InputsDigest() != want.InputsDigest() {
			t.Fatalf("%s: LoadMemo = %+v, %v; want %+v", run, got, err, want)
		}
	}
	if entries, _ := os.ReadDir(memos); len(entries) != 1 {
		t.Fatalf("memo folder holds %d files; want 1", len(entries))
	}
	// A manifest from the memo edits and marshals as a parsed one does,
	// comments kept.
	m, _ := LoadMemo(dir, memos)
	m.Set("new", "^2.0")
	if data, err := m.Marshal(); err != nil || !strings.Contains(string(data), "# the project") || !strings.Contains(string(data), "new:") {
		t.Errorf("edited manifest from the memo marshals to %q, %v", data, err)
	}
	// Other bytes are parsed again: an invalid edit is refused.
	os.WriteFile(path, []byte(strings.Replace(yml, "pdf: ^1.2", "pdf: ^1.3", 1)), 0o644)
	if got, err := LoadMemo(dir, memos); err != nil || got.Skills["pdf"].Constraint != "^1.3" {
		t.Errorf("edited skills.yaml: %+v, %v", got, err)
	}
	os.WriteFile(path, []byte(strings.Replace(yml, "pdf: ^1.2", "pdf: not-a-constraint", 1)), 0o644)
	if _, err := LoadMemo(dir, memos); err == nil {
		t.Error("an invalid constraint was accepted")
	}
	// Reload goes through the memo folder too.
	os.WriteFile(path, []byte(yml), 0o644)
	m, _ = LoadMemo(dir, memos)
	os.WriteFile(path, []byte(strings.Replace(yml, "pdf: ^1.2", "pdf: ^1.3", 1)), 0o644)
	if r, err := m.Reload(); err != nil || r == m || r.memoDir != memos || r.Skills["pdf"].Constraint != "^1.3" {
		t.Errorf("Reload after an edit: %+v, %v", r, err)
	}
}

// The memo holds a manifest's exported fields as JSON: a field added to
// Manifest, Want or Tools must be checked to round-trip, and memoKind's
// version bumped, before this passes again.
func TestManifestMemoCoversFields(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{Manifest{}, "Registry Targets Agents Skills Prereleases Policy Tools path doc src memoDir"},
		{Want{}, "Constraint Registry Git Path Ref Local WellKnown"},
		{Tools{}, "Env Sandbox"},
	} {
		var names []string
		for f := range reflect.TypeOf(c.v).Fields() {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("%T has the fields %s; the memo was checked for %s", c.v, got, c.want)
		}
	}
}
