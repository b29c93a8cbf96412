package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/command"
)

// TestInitThenLintStrict: skillpm init x --tool t --runtime R && skillpm
// lint x has no errors, and its only warnings are the placeholders init
// leaves for the author (rule placeholder-text), so lint --strict fails
// until they are replaced.
func TestInitThenLintStrict(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		wantFiles []string
	}{
		{"python", []string{"init", "x", "--tool", "t", "--runtime", "python"}, []string{"SKILL.md", "scripts/t.py"}},
		{"node", []string{"init", "x", "--tool", "t", "--runtime", "node"}, []string{"SKILL.md", "scripts/t.mjs"}},
		{"bash", []string{"init", "x", "--tool", "t", "--runtime", "bash"}, []string{"SKILL.md", "scripts/t.sh"}},
		{"default-runtime", []string{"init", "--tool", "extract-text", "x"}, []string{"SKILL.md", "scripts/extract_text.py"}},
		{"no-tool", []string{"init", "x", "--description", "Greets people. Use when: someone says hi."}, []string{"SKILL.md"}},
		// The Skill Tools spec's own example name: underscores pick tools.json.
		{"skill-tools by name", []string{"init", "x", "--tool", "count_words", "--runtime", "node"}, []string{"SKILL.md", "scripts/count_words.js", "tools.json"}},
		{"skill-tools asked", []string{"init", "x", "--tool", "t", "--format", "skill-tools"}, []string{"SKILL.md", "scripts/t.py", "tools.json"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, stdout, stderr := lintRun(t, tc.args...)
			if code != command.ExitOK {
				t.Fatalf("skillpm %s = exit %d; want 0\nstderr: %s", strings.Join(tc.args, " "), code, stderr)
			}
			if !strings.Contains(stdout, "next: edit "+filepath.Join("x", "SKILL.md")) {
				t.Errorf("init stdout = %q; want it to say what to do next", stdout)
			}
			var got []string
			filepath.WalkDir("x", func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					got = append(got, filepath.ToSlash(strings.TrimPrefix(p, "x"+string(filepath.Separator))))
				}
				return err
			})
			if !slices.Equal(got, tc.wantFiles) {
				t.Errorf("files = %q; want %q", got, tc.wantFiles)
			}
			code, stdout, stderr = lintRun(t, "lint", "--json", "x")
			var res struct {
				Skills []struct {
					Diagnostics []struct{ Rule, Severity string }
				}
			}
			if err := json.Unmarshal([]byte(stdout), &res); code != command.ExitOK || err != nil || len(res.Skills) != 1 {
				t.Fatalf("skillpm lint --json x = exit %d, %v\n%s%s\nwant exit 0 and one skill", code, err, stdout, stderr)
			}
			for _, d := range res.Skills[0].Diagnostics {
				if d.Rule != "placeholder-text" || d.Severity != "warning" {
					t.Errorf("lint: %s %s; want only placeholder-text warnings", d.Severity, d.Rule)
				}
			}
			if len(res.Skills[0].Diagnostics) == 0 {
				t.Errorf("lint found no placeholder-text warnings in a fresh scaffold")
			}
			if code, _, _ = lintRun(t, "lint", "--strict", "x"); code != command.ExitInvalid {
				t.Errorf("skillpm lint --strict x = exit %d; want %d until the placeholders are replaced", code, command.ExitInvalid)
			}
		})
	}
}

func TestInitJSON(t *testing.T) {
	t.Chdir(t.TempDir())
	code, stdout, _ := lintRun(t, "init", "--json", "x", "--tool", "t", "--runtime", "node")
	var out struct {
		Dir   string   `json:"dir"`
		Files []string `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || code != command.ExitOK {
		t.Fatalf("init --json = exit %d, %q, %v; want 0 and JSON", code, stdout, err)
	}
	if out.Dir != "x" || !slices.Equal(out.Files, []string{"scripts/t.mjs", "SKILL.md"}) {
		t.Errorf("init --json = %+v; want dir x with scripts/t.mjs and SKILL.md", out)
	}
}

func TestInitErrors(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"bad-tool-name", []string{"init", "x", "--tool", "Extract_Text"}, `tool name "Extract_Text" fits neither format`},
		{"bad-runtime", []string{"init", "x", "--tool", "t", "--runtime", "ruby"}, `unknown runtime "ruby"`},
		{"runtime-without-tool", []string{"init", "x", "--runtime", "node"}, "--runtime needs --tool NAME"},
		{"bad-name", []string{"init", "x", "--name", "Bad Name"}, `"Bad Name" is not a valid skill name`},
		{"two-folders", []string{"init", "x", "y"}, "init takes at most one folder, got 2"},
		{"unknown-flag", []string{"init", "x", "--tools", "t"}, "flag provided but not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, _, stderr := lintRun(t, tc.args...)
			if code != command.ExitUsage || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("skillpm %s = exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, stderr, command.ExitUsage, tc.wantStderr)
			}
			if !strings.Contains(stderr, "--help") {
				t.Errorf("stderr = %q; want a hint pointing at --help", stderr)
			}
			if _, err := os.Stat("x"); !os.IsNotExist(err) {
				t.Errorf("Stat(x) error = %v; want nothing created", err)
			}
		})
	}
}

func TestInitExisting(t *testing.T) {
	t.Chdir(t.TempDir())
	if code, _, stderr := lintRun(t, "init", "x"); code != command.ExitOK {
		t.Fatalf("first init = exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join("x", "SKILL.md"), []byte("edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := lintRun(t, "init", "x", "--tool", "t")
	if code != command.ExitUsage || !strings.Contains(stderr, "already exists; use --force") {
		t.Errorf("second init = exit %d, stderr %q; want exit %d refusing to overwrite", code, stderr, command.ExitUsage)
	}
	if b, _ := os.ReadFile(filepath.Join("x", "SKILL.md")); string(b) != "edited\n" {
		t.Errorf("SKILL.md = %q; want the edited file kept", b)
	}
	if code, _, stderr := lintRun(t, "init", "x", "--tool", "t", "--force"); code != command.ExitOK {
		t.Errorf("init --force = exit %d: %s", code, stderr)
	}
}

// TestInitRefusesProjectFolder: a folder holding skills.yaml or .git is a
// project; init says so instead of silently turning it into one skill.
func TestInitRefusesProjectFolder(t *testing.T) {
	for _, marker := range []string{"skills.yaml", ".git"} {
		t.Run(marker, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if err := os.Mkdir("p", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("p", marker), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := lintRun(t, "init", "p")
			if code != command.ExitUsage || !strings.Contains(stderr, "holds "+marker) || !strings.Contains(stderr, "skillpm init skills/NAME") {
				t.Fatalf("init p = exit %d, stderr %q; want exit 2 naming %s and the fix", code, stderr, marker)
			}
			if _, err := os.Stat(filepath.Join("p", "SKILL.md")); !os.IsNotExist(err) {
				t.Errorf("SKILL.md written after a refusal (stat: %v)", err)
			}
			if code, _, stderr := lintRun(t, "init", "p", "--force"); code != command.ExitOK {
				t.Errorf("init p --force = exit %d (%s); want 0", code, stderr)
			}
		})
	}
}
