package skill

import (
	"strconv"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

func TestParseDependency(t *testing.T) {
	tests := []struct {
		in             string
		wantName       string
		wantConstraint string
		wantString     string
		wantErr        string
	}{
		{"pdf", "pdf", "*", "pdf", ""},
		{"pdf@^1.2", "pdf", "^1.2", "pdf@^1.2", ""},
		{" pdf @ >=1.0 <2 ", "pdf", ">=1.0 <2", "pdf@>=1.0 <2", ""},
		{"pdf@latest", "pdf", "*", "pdf", ""},
		{"pdf@1.2.3", "pdf", "1.2.3", "pdf@1.2.3", ""},
		{"pdf@1.x", "pdf", "1.x", "pdf@1.x", ""},
		{"", "", "", "", `dependency "": "" is not a valid skill name`},
		{"PDF@1", "", "", "", `dependency "PDF@1": "PDF" is not a valid skill name`},
		{"@1.0.0", "", "", "", `dependency "@1.0.0": "" is not a valid skill name`},
		{"pdf@>>1", "", "", "", `dependency "pdf@>>1": invalid version constraint ">>1"`},
		{"pdf@one", "", "", "", `dependency "pdf@one": invalid version constraint "one"`},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			d, err := ParseDependency(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("ParseDependency(%q) error = %v; want %q", tc.in, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseDependency(%q) error = %v", tc.in, err)
			}
			if d.Name != tc.wantName || d.Constraint != tc.wantConstraint || d.String() != tc.wantString || d.Constraints == nil {
				t.Errorf("ParseDependency(%q) = %q, %q, String %q; want %q, %q, %q", tc.in, d.Name, d.Constraint, d.String(), tc.wantName, tc.wantConstraint, tc.wantString)
			}
		})
	}
}

func TestLoadDependsOn(t *testing.T) {
	tests := []struct {
		name      string
		fm        []string
		wantDeps  []string // name@constraint:line
		wantDiags []string
		wantMsg   string
	}{
		{name: "list",
			fm:       []string{"depends_on:", "  - pdf@^1.2", "  - ocr", "  - fmt: ~0.3"},
			wantDeps: []string{"pdf@^1.2:5", "ocr@*:6", "fmt@~0.3:7"}},
		{name: "mapping",
			fm:       []string{"depends_on:", "  pdf: ^1.2", "  ocr: '*'"},
			wantDeps: []string{"pdf@^1.2:5", "ocr@*:6"}},
		{name: "flow-list",
			fm:       []string{"depends_on: [pdf@1.x, ocr@latest]"},
			wantDeps: []string{"pdf@1.x:4", "ocr@*:4"}},
		{name: "null", fm: []string{"depends_on:"}},
		{name: "invalid-constraint-names-entry",
			fm:        []string{"depends_on:", "  - pdf@^1.2", "  - ocr@>>2"},
			wantDeps:  []string{"pdf@^1.2:5"},
			wantDiags: []string{"SKILL.md:6 error depends-on-invalid"}, wantMsg: `dependency "ocr@>>2": invalid version constraint ">>2"`},
		{name: "invalid-name-in-mapping",
			fm:        []string{"depends_on:", "  Bad_Name: ^1"},
			wantDiags: []string{"SKILL.md:5 error depends-on-invalid"}, wantMsg: `dependency "Bad_Name@^1": "Bad_Name" is not a valid skill name`},
		{name: "duplicate",
			fm:        []string{"depends_on: [pdf@1, pdf@2]"},
			wantDeps:  []string{"pdf@1:4"},
			wantDiags: []string{"SKILL.md:4 error depends-on-invalid"}, wantMsg: `"pdf" is listed twice`},
		{name: "scalar",
			fm:        []string{"depends_on: pdf@1"},
			wantDiags: []string{"SKILL.md:4 error depends-on-invalid"}, wantMsg: "depends_on must be a list"},
		{name: "nested-list-entry",
			fm:        []string{"depends_on:", "  - [pdf, ocr]"},
			wantDiags: []string{"SKILL.md:5 error depends-on-invalid"}, wantMsg: "entries must be strings"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, "x", map[string]string{"SKILL.md": skillMD(body, append([]string{"name: x", "description: d"}, tc.fm...)...)})
			s, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range s.Dependencies {
				got = append(got, d.Name+"@"+d.Constraint+":"+strconv.Itoa(d.line))
			}
			if strings.Join(got, " ") != strings.Join(tc.wantDeps, " ") {
				t.Errorf("Dependencies = %q; want %q", got, tc.wantDeps)
			}
			checkDiags(t, dir, newLinter(t).Lint(dir, LintOptions{}).Diagnostics, tc.wantDiags, tc.wantMsg)
		})
	}
}

func TestDependencyConstraints(t *testing.T) {
	d, err := ParseDependency("pdf@^1.2")
	if err != nil {
		t.Fatal(err)
	}
	for v, want := range map[string]bool{"1.2.0": true, "1.9.3": true, "1.1.9": false, "2.0.0": false} {
		if got := d.Constraints.Check(semver.MustParse(v)); got != want {
			t.Errorf("^1.2 Check(%s) = %v; want %v", v, got, want)
		}
	}
}
