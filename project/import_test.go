package project

import "testing"

func TestCheckSourceThenSet(t *testing.T) {
	m, err := Parse([]byte("# team skills\nregistry: ghcr.io/acme/skills\nskills:\n  pdf: ^1.2 # keep\n"))
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]Want{
		"docx":  {Git: "github.com/anthropics/skills", Path: "skills/docx", Ref: "0123456789abcdef0123456789abcdef01234567"},
		"brand": {WellKnown: "https://example.com"},
	}
	for _, name := range []string{"docx", "brand"} {
		if err := CheckSource(name, good[name]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		m.SetSource(name, good[name])
	}
	bad := map[string]Want{
		"../x": {Local: "y"},                                    // a name that is a path
		"two":  {Git: "github.com/a/b", Local: "./b"},           // two sources
		"far":  {Local: "../outside"},                           // outside the project
		"opt":  {Git: "github.com/a/b", Ref: "--upload-pack=x"}, // an option as a ref
	}
	for name, w := range bad {
		if err := CheckSource(name, w); err == nil {
			t.Errorf("%s: %+v was accepted", name, w)
		}
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
	if _, err := Parse(data); err != nil {
		t.Errorf("what was written does not parse: %v", err)
	}
}
