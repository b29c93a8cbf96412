package skill

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpus is the shared lint corpus at the repository root: one folder per
// case, valid/ ones lint clean, invalid/ ones do not. Its golden output is
// checked by cmd/skillpm's lint tests.
const corpus = "../testdata/skills"

func corpusCases(t *testing.T, kind string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(corpus, kind))
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(corpus, kind, e.Name()))
		}
	}
	if len(dirs) == 0 {
		t.Fatalf("no cases under %s", filepath.Join(corpus, kind))
	}
	return dirs
}

func TestCorpusValid(t *testing.T) {
	l := newLinter(t)
	for _, dir := range corpusCases(t, "valid") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s, err := Load(dir)
			if err != nil {
				t.Fatalf("Load() error = %v", err)
			}
			if s.Name() != filepath.Base(dir) {
				t.Errorf("Name() = %q; want the folder name %q", s.Name(), filepath.Base(dir))
			}
			res := l.Lint(dir, LintOptions{Strict: true})
			if len(res.Diagnostics) != 0 {
				t.Errorf("Lint(strict) diagnostics:\n%swant none", messages(res.Diagnostics))
			}
		})
	}
}

func TestCorpusInvalid(t *testing.T) {
	l := newLinter(t)
	for _, dir := range corpusCases(t, "invalid") {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			res := l.Lint(dir, LintOptions{})
			if len(res.Diagnostics) == 0 {
				t.Errorf("Lint() found nothing; an invalid case must break at least one rule")
			}
			for _, d := range res.Diagnostics {
				if _, ok := ruleByID[d.Rule]; !ok {
					t.Errorf("%s: rule %q is not in Rules", d, d.Rule)
				}
				if !strings.HasPrefix(d.File, dir+string(filepath.Separator)) {
					t.Errorf("%s: file is not inside the case folder %s", d, dir)
				}
			}
		})
	}
}

// generatedCases are corpus cases that cannot be committed as plain files.
func generatedCases(t *testing.T) []string {
	root := t.TempDir()
	// unreadable: permission bits do not stop root, so use a path whose
	// parent is a regular file (stat fails with ENOTDIR for everyone).
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	// file-too-large: an 8 MiB + 1 byte sparse SKILL.md.
	big := writeSkill(t, "too-large", map[string]string{"SKILL.md": "---\n"})
	if err := os.Truncate(filepath.Join(big, FileName), 8<<20+1); err != nil {
		t.Fatal(err)
	}
	// skill-too-large: a 9 MiB (sparse) asset beside a small SKILL.md.
	heavy := writeSkill(t, "heavy", map[string]string{"SKILL.md": skillMD(body, "name: heavy", "description: d"), "assets/blob.bin": ""})
	if err := os.Truncate(filepath.Join(heavy, "assets", "blob.bin"), 9<<20); err != nil {
		t.Fatal(err)
	}
	// text-control: an ESC written as a YAML escape in the description.
	esc := writeSkill(t, "text-control", map[string]string{"SKILL.md": "---\nname: text-control\ndescription: \"\\e[2Jall skills verified OK\"\n---\n# x\n"})
	return []string{filepath.Join(file, "skill"), big, heavy, esc}
}

// TestCorpusCoversEveryRule fails when a rule has no corpus case: add a
// folder under testdata/skills/invalid (or, if it cannot be committed, to
// generatedCases) with every new rule.
func TestCorpusCoversEveryRule(t *testing.T) {
	l := newLinter(t)
	seen := map[string][]string{}
	for _, dir := range append(append(corpusCases(t, "valid"), corpusCases(t, "invalid")...), generatedCases(t)...) {
		for _, d := range l.Lint(dir, LintOptions{}).Diagnostics {
			seen[d.Rule] = append(seen[d.Rule], filepath.Base(dir))
		}
	}
	var missing []string
	for _, r := range Rules() {
		if len(seen[r.ID]) == 0 {
			missing = append(missing, r.ID)
		}
		delete(seen, r.ID)
	}
	if len(missing) > 0 {
		t.Errorf("rules with no corpus case: %s", strings.Join(missing, ", "))
	}
	var unknown []string
	for id := range seen {
		unknown = append(unknown, id)
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("diagnostics with rule IDs missing from Rules: %s", strings.Join(unknown, ", "))
	}
}

func TestRulesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("rule %q is listed twice", r.ID)
		}
		seen[r.ID] = true
		if r.ID == "" || r.ID != strings.ToLower(r.ID) || strings.ContainsAny(r.ID, " _") {
			t.Errorf("rule ID %q: want lowercase-with-hyphens", r.ID)
		}
		if r.Severity != SeverityError && r.Severity != SeverityWarning {
			t.Errorf("rule %q: severity %q; want error or warning", r.ID, r.Severity)
		}
		if _, err := ParseProfile(string(r.Profile)); err != nil || r.Profile == ProfileAuto {
			t.Errorf("rule %q: profile %q; want a named profile", r.ID, r.Profile)
		}
		if r.Summary == "" {
			t.Errorf("rule %q has no summary", r.ID)
		}
	}
}
