package skill

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// aliasBomb is the YAML billion laughs: nine levels of nine aliases.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("name: x\ndescription: d\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		name := string(c)
		b.WriteString(name + ": &" + name + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", ") + "]\n")
		prev = name
	}
	return b.String()
}

func TestLoadHostile(t *testing.T) {
	big := "---\nname: x\ndescription: d\nmetadata:\n" + strings.Repeat("  k: "+strings.Repeat("v", 70)+"\n", 1000)
	tests := []struct {
		name     string
		data     string
		lim      Limits
		wantRule string
		wantLine int
		wantMsg  string
	}{
		{"empty-file", "", Limits{}, "frontmatter-missing", 1, "does not start with YAML frontmatter"},
		{"no-frontmatter", "# Title\n\nname: x\n", Limits{}, "frontmatter-missing", 1, "does not start with YAML frontmatter"},
		{"frontmatter-not-first", "\n---\nname: x\n---\n", Limits{}, "frontmatter-missing", 1, "does not start"},
		{"missing-closing", "---\nname: x\ndescription: d\n\n# Body\n", Limits{}, "frontmatter-unclosed", 1, "no closing '---'"},
		{"only-opening", "---", Limits{}, "frontmatter-unclosed", 1, "no closing"},
		{"closing-indented-is-not-closing", "---\nname: x\n ---\n", Limits{}, "frontmatter-unclosed", 1, "no closing"},
		{"binary-nul", "---\nname: x\x00\n---\n", Limits{}, "encoding", 0, "binary (contains NUL bytes)"},
		{"binary-png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", Limits{}, "encoding", 0, "binary"},
		{"invalid-utf8", "---\nname: x\ndescription: caf\xe9\n---\n", Limits{}, "encoding", 3, "not valid UTF-8"},
		{"utf16-bom", "\xff\xfe-\x00-\x00-\x00", Limits{}, "encoding", 0, "binary"},
		{"not-mapping-list", "---\n- a\n- b\n---\n", Limits{}, "frontmatter-not-mapping", 2, "not a YAML mapping"},
		{"not-mapping-scalar", "---\njust text\n---\n", Limits{}, "frontmatter-not-mapping", 2, "not a YAML mapping"},
		{"yaml-syntax", "---\nname: x\ndescription: Use when: asked\n---\n", Limits{}, "yaml-syntax", 3, "line 3: mapping values are not allowed"},
		{"yaml-syntax-tab", "---\nname: x\n\tdescription: d\n---\n", Limits{}, "yaml-syntax", 3, "invalid YAML"},
		{"yaml-unclosed-quote", "---\nname: \"x\ndescription: d\n---\n", Limits{}, "yaml-syntax", 0, "invalid YAML"},
		{"alias-bomb", "---\n" + aliasBomb() + "---\n", Limits{}, "yaml-too-complex", 2, "alias bomb"},
		{"deep-nesting", "---\nname: x\nd: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n---\n", Limits{}, "yaml-too-complex", 2, "nests too deeply"},
		{"many-nodes-limit", "---\nname: x\ntags: [" + strings.TrimSuffix(strings.Repeat("t, ", 50), ", ") + "]\n---\n", Limits{MaxYAMLNodes: 20}, "yaml-too-complex", 2, "more than 20 YAML nodes"},
		{"duplicate-key", "---\nname: x\ndescription: a\nname: y\n---\n", Limits{}, "yaml-duplicate-key", 4, `"name" is defined twice (first on line 2)`},
		{"frontmatter-over-64k", big + "---\nbody\n", Limits{}, "frontmatter-too-large", 1, "over the 65536 byte limit"},
		{"unclosed-over-64k", big + "body\n", Limits{}, "frontmatter-too-large", 1, "unclosed or over the 65536 byte limit"},
		{"frontmatter-over-limit", "---\nname: x\ndescription: " + strings.Repeat("d", 200) + "\n---\n", Limits{MaxFrontmatter: 100}, "frontmatter-too-large", 1, "over the 100 byte limit"},
		{"file-over-limit", "---\nname: x\ndescription: d\n---\n" + strings.Repeat("body\n", 100), Limits{MaxFile: 256}, "file-too-large", 0, "over the 256 byte limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, "x", map[string]string{"SKILL.md": tc.data})
			s, err := LoadWithLimits(dir, tc.lim)
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("LoadWithLimits() = %v, %v; want an *Error", s, err)
			}
			if le.Rule != tc.wantRule || (tc.wantLine != 0 && le.Line != tc.wantLine) || !strings.Contains(le.Msg, tc.wantMsg) {
				t.Errorf("LoadWithLimits() error = rule %q, line %d, %q; want rule %q, line %d, containing %q", le.Rule, le.Line, le.Msg, tc.wantRule, tc.wantLine, tc.wantMsg)
			}
			if le.Path != filepath.Join(dir, FileName) {
				t.Errorf("error path = %q; want %q", le.Path, filepath.Join(dir, FileName))
			}
			if le.Fix == "" {
				t.Errorf("error %q has no fix", le.Msg)
			}
			if _, ok := ruleByID[le.Rule]; !ok {
				t.Errorf("error rule %q is not in Rules", le.Rule)
			}
			// Lint reports the same problem as its one diagnostic.
			res := newLinter(t).Lint(dir, LintOptions{Limits: tc.lim})
			if len(res.Diagnostics) != 1 || res.Diagnostics[0].Rule != tc.wantRule || res.Errors() != 1 {
				t.Errorf("Lint() diagnostics = %s; want one %s error", messages(res.Diagnostics), tc.wantRule)
			}
		})
	}
}

func TestLoadFileOverDefaultLimit(t *testing.T) {
	dir := writeSkill(t, "x", map[string]string{"SKILL.md": "---\nname: x\n---\n"})
	// A sparse file: over 8 MiB on paper, nothing read to find out.
	if err := os.Truncate(filepath.Join(dir, FileName), 8<<20+1); err != nil {
		t.Fatal(err)
	}
	_, err := Load(dir)
	var le *Error
	if !errors.As(err, &le) || le.Rule != "file-too-large" || !strings.Contains(le.Msg, "8388609 bytes, over the 8388608 byte limit") {
		t.Fatalf("Load() error = %v; want file-too-large naming the size and the 8 MiB limit", err)
	}
}

func TestLoadNotASkill(t *testing.T) {
	root := t.TempDir()
	file := filepath.Join(root, "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	skillDir := writeSkill(t, "dir-skill", map[string]string{"SKILL.md/.gitkeep": ""})
	tests := []struct {
		name     string
		dir      string
		wantRule string
		wantMsg  string
		notSkill bool
	}{
		{"no-such-dir", filepath.Join(root, "missing"), "skill-md-missing", "no such directory", true},
		{"a-file", file, "skill-md-missing", "not a directory", true},
		{"no-skill-md", root, "skill-md-missing", "SKILL.md not found", true},
		{"skill-md-is-a-directory", skillDir, "skill-md-missing", "SKILL.md is a directory", true},
		{"path-through-a-file", filepath.Join(file, "x"), "unreadable", "not a directory", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.dir)
			var le *Error
			if !errors.As(err, &le) || le.Rule != tc.wantRule || !strings.Contains(le.Msg, tc.wantMsg) {
				t.Fatalf("Load(%q) error = %v; want rule %s containing %q", tc.dir, err, tc.wantRule, tc.wantMsg)
			}
			if got := errors.Is(err, ErrNotSkill); got != tc.notSkill {
				t.Errorf("errors.Is(err, ErrNotSkill) = %v; want %v", got, tc.notSkill)
			}
		})
	}
}

func TestLoadAccepts(t *testing.T) {
	tests := []struct {
		name               string
		data               string
		wantBOM, wantCRLF  bool
		wantDesc, wantBody string
		wantBodyLine       int
	}{
		{"plain", "---\nname: x\ndescription: d\n---\n# Body\n", false, false, "d", "# Body\n", 5},
		{"bom", "\ufeff---\nname: x\ndescription: d\n---\n# Body\n", true, false, "d", "# Body\n", 5},
		{"crlf", "---\r\nname: x\r\ndescription: >-\r\n  two\r\n  lines\r\n---\r\n# Body\r\n", false, true, "two lines", "# Body\n", 7},
		{"bom-crlf", "\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\n", true, true, "d", "", 5},
		{"trailing-space-delimiters", "--- \nname: x\ndescription: d\n---\t\nbody", false, false, "d", "body", 5},
		{"yaml-document-end", "---\nname: x\ndescription: d\n...\nbody\n", false, false, "d", "body\n", 5},
		{"no-newline-after-closing", "---\nname: x\ndescription: d\n---", false, false, "d", "", 5},
		{"empty-frontmatter", "---\n---\nbody\n", false, false, "", "body\n", 3},
		{"horizontal-rule-in-body", "---\nname: x\ndescription: d\n---\na\n---\nb\n", false, false, "d", "a\n---\nb\n", 5},
		{"small-anchors", "---\nname: &n x\ndescription: *n\n---\n", false, false, "x", "", 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, "x", map[string]string{"SKILL.md": tc.data})
			s, err := Load(dir)
			if err != nil {
				t.Fatalf("Load() error = %v", err)
			}
			if s.HasBOM != tc.wantBOM || s.CRLF != tc.wantCRLF {
				t.Errorf("HasBOM, CRLF = %v, %v; want %v, %v", s.HasBOM, s.CRLF, tc.wantBOM, tc.wantCRLF)
			}
			if s.Frontmatter.Description != tc.wantDesc || s.Body != tc.wantBody || s.BodyLine != tc.wantBodyLine {
				t.Errorf("description, body, body line = %q, %q, %d; want %q, %q, %d",
					s.Frontmatter.Description, s.Body, s.BodyLine, tc.wantDesc, tc.wantBody, tc.wantBodyLine)
			}
		})
	}
}

func TestLoadWildSkillStaysUsable(t *testing.T) {
	desc := strings.Repeat("d", 1500)
	dir := writeSkill(t, "folder", map[string]string{"SKILL.md": skillMD(body,
		"name: other-name", "description: "+desc, "author: jane", "user-invocable: true", "allowed-tools: Read Bash(git:*)")})
	s, err := Load(dir)
	if err != nil {
		t.Fatalf("Load() error = %v; want rule violations not to stop loading", err)
	}
	if s.Name() != "other-name" || len(s.Frontmatter.Description) != 1500 {
		t.Errorf("Name(), len(description) = %q, %d; want %q, 1500", s.Name(), len(s.Frontmatter.Description), "other-name")
	}
	if got := s.Frontmatter.Unknown; got["author"] != "jane" || got["user-invocable"] != true {
		t.Errorf("Unknown = %v; want author and user-invocable kept", got)
	}
	if got, want := strings.Join(s.Frontmatter.AllowedTools, ","), "Read,Bash(git:*)"; got != want {
		t.Errorf("AllowedTools = %q; want %q", got, want)
	}
	res := newLinter(t).Lint(dir, LintOptions{})
	checkDiags(t, dir, res.Diagnostics, []string{
		"SKILL.md:2 error name-mismatch", "SKILL.md:3 error description-length",
		"SKILL.md:4 warning unknown-field", "SKILL.md:5 warning unknown-field",
	}, "")
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{Path: "a/SKILL.md", Line: 3, Msg: "bad"}, "a/SKILL.md:3: bad"},
		{&Error{Path: "a/SKILL.md", Msg: "bad"}, "a/SKILL.md: bad"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q; want %q", got, tc.want)
		}
	}
	cause := errors.New("cause")
	if err := (&Error{Err: cause}); !errors.Is(err, cause) {
		t.Errorf("errors.Is(%v, cause) = false; want Unwrap to expose the cause", err)
	}
}

func TestNormalizeRelPath(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"scripts/a.py", "scripts/a.py", true},
		{"./scripts/../a.py", "a.py", true},
		{`scripts\a.py`, "scripts/a.py", true},
		{"../a.py", "../a.py", false},
		{"a/../../b", "../b", false},
		{"..", "..", false},
		{"/etc/passwd", "/etc/passwd", false},
		{"", "", false},
		{"..foo/a", "..foo/a", true},
	}
	for _, tc := range tests {
		if got, ok := NormalizeRelPath(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("NormalizeRelPath(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"pdf": true, "pdf-tools": true, "a1-b2": true, "9": true, strings.Repeat("a", 64): true,
		"": false, "PDF": false, "pdf--tools": false, "-pdf": false, "pdf-": false, "pdf_tools": false,
		"pdf tools": false, strings.Repeat("a", 65): false, "pdf\n": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v; want %v", name, got, want)
		}
	}
	// Every name of up to five characters from an alphabet that covers
	// each case is judged as the grammar's regular expression judges it.
	re := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	const alphabet = "az09-A_.é"
	var walk func(name string)
	walk = func(name string) {
		if got, want := ValidName(name), name != "" && re.MatchString(name); got != want {
			t.Errorf("ValidName(%q) = %v; the grammar says %v", name, got, want)
		}
		if len(name) < 5 {
			for _, c := range alphabet {
				walk(name + string(c))
			}
		}
	}
	walk("")
}
