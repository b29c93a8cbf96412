package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/skill"
)

// updateGolden is -update; other golden tests in this package can share it.
var updateGolden = flag.Bool("update", false, "rewrite golden files under testdata/")

// lintRepoRoot is where testdata/ lives, relative to this package.
const lintRepoRoot = "../.."

// lintRun runs skillpm in-process and returns its exit code and output.
func lintRun(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"skillpm"}, args...), strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestLintGolden lints the whole corpus from the repository root, as
// 'skillpm lint testdata/skills' would, and compares the output with the
// golden files. Regenerate them with: go test ./cmd/skillpm-full -run Lint -update
func TestLintGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	t.Chdir(lintRepoRoot)
	tests := []struct {
		golden string
		args   []string
	}{
		{"testdata/lint.golden", []string{"lint", "testdata/skills"}},
		{"testdata/lint.json.golden", []string{"lint", "--json", "testdata/skills"}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.golden), func(t *testing.T) {
			code, stdout, stderr := lintRun(t, tc.args...)
			if code != command.ExitInvalid || stderr != "" {
				t.Errorf("skillpm %s = exit %d, stderr %q; want exit %d and no stderr", strings.Join(tc.args, " "), code, stderr, command.ExitInvalid)
			}
			// Paths are printed as given; use / so the golden is the same
			// on every OS.
			got := filepath.ToSlash(stdout)
			if *updateGolden {
				if err := os.WriteFile(tc.golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(tc.golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("skillpm %s output differs from %s (run with -update after checking the change):\n%s",
					strings.Join(tc.args, " "), tc.golden, lintLineDiff(string(want), got))
			}
		})
	}
}

// TestLintGoldenStable guards the golden files against output that depends
// on map order or the machine: runs must agree and name no absolute path.
func TestLintGoldenStable(t *testing.T) {
	t.Chdir(lintRepoRoot)
	abs, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	_, first, _ := lintRun(t, "lint", "--json", "testdata/skills")
	for i := 0; i < 5; i++ {
		if _, again, _ := lintRun(t, "lint", "--json", "testdata/skills"); again != first {
			t.Fatalf("run %d differs from the first:\n%s", i+2, lintLineDiff(first, again))
		}
	}
	if strings.Contains(first, abs) {
		t.Errorf("lint output contains the absolute path %s", abs)
	}
}

func TestLintJSON(t *testing.T) {
	t.Chdir(lintRepoRoot)
	_, stdout, _ := lintRun(t, "lint", "--json", "testdata/skills")
	var out struct {
		Skills []struct {
			Dir         string             `json:"dir"`
			Profile     string             `json:"profile"`
			Diagnostics []skill.Diagnostic `json:"diagnostics"`
			Errors      int                `json:"errors"`
			Warnings    int                `json:"warnings"`
		} `json:"skills"`
		Errors   int `json:"errors"`
		Warnings int `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("lint --json output is not JSON: %v", err)
	}
	errs, warns := 0, 0
	for _, s := range out.Skills {
		e, w := 0, 0
		for _, d := range s.Diagnostics {
			switch d.Severity {
			case skill.SeverityError:
				e++
			case skill.SeverityWarning:
				w++
			}
			if d.Rule == "" || d.Message == "" || d.Fix == "" || d.Profile == "" {
				t.Errorf("%s: diagnostic %+v lacks a rule, message, fix or profile", s.Dir, d)
			}
		}
		if e != s.Errors || w != s.Warnings {
			t.Errorf("%s: errors, warnings = %d, %d; want the diagnostics' %d, %d", s.Dir, s.Errors, s.Warnings, e, w)
		}
		if strings.HasPrefix(s.Dir, "testdata/skills/valid/") && len(s.Diagnostics) != 0 {
			t.Errorf("%s: valid case has diagnostics %+v", s.Dir, s.Diagnostics)
		}
		errs, warns = errs+e, warns+w
	}
	if errs != out.Errors || warns != out.Warnings || errs == 0 || warns == 0 {
		t.Errorf("totals = %d errors, %d warnings; want the sums %d, %d (both non-zero)", out.Errors, out.Warnings, errs, warns)
	}
}

func TestLintExitCodes(t *testing.T) {
	t.Chdir(lintRepoRoot)
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"valid", []string{"lint", "testdata/skills/valid"}, command.ExitOK, "0 errors, 0 warnings in 7 skills (7 clean)", ""},
		{"valid-strict", []string{"lint", "--strict", "testdata/skills/valid"}, command.ExitOK, "7 clean", ""},
		{"warnings-only", []string{"lint", "testdata/skills/invalid/extra-keys"}, command.ExitOK, "0 errors, 4 warnings in 1 skill", ""},
		{"warnings-strict", []string{"lint", "--strict", "testdata/skills/invalid/extra-keys"}, command.ExitInvalid, "4 errors, 0 warnings", ""},
		{"errors", []string{"lint", "testdata/skills/invalid/name-mismatch"}, command.ExitInvalid, "[name-mismatch]", ""},
		{"skill-md-file", []string{"lint", "testdata/skills/valid/minimal/SKILL.md"}, command.ExitOK, "1 skill (1 clean)", ""},
		{"several-paths", []string{"lint", "testdata/skills/valid/minimal", "testdata/skills/valid/doc-tools"}, command.ExitOK, "2 skills (2 clean)", ""},
		{"flags-after-path", []string{"lint", "testdata/skills/invalid/extra-keys", "--strict"}, command.ExitInvalid, "4 errors", ""},
		{"forced-universal", []string{"lint", "--profile", "universal", "testdata/skills/valid/minimal"}, command.ExitInvalid, "missing properties 'spec_version', 'version'", ""},
		{"forced-agent-skills", []string{"lint", "--profile", "agent-skills", "testdata/skills/valid/report-writer"}, command.ExitOK, `unknown frontmatter field "version"`, ""},
		{"quiet-hides-warnings", []string{"lint", "-q", "testdata/skills/invalid/extra-keys"}, command.ExitOK, "", ""},
		{"bad-profile", []string{"lint", "--profile", "claude", "testdata/skills/valid/minimal"}, command.ExitUsage, "", `unknown profile "claude"`},
		{"no-such-path", []string{"lint", "testdata/skills/nope"}, command.ExitNotFound, "", "no such file or directory"},
		{"no-skills-under", []string{"lint", "skill/schemas"}, command.ExitNotFound, "", "no SKILL.md found"},
		{"not-a-skill-file", []string{"lint", "go.mod"}, command.ExitNotFound, "", "not a skill folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lintRun(t, tc.args...)
			if code != tc.wantCode {
				t.Errorf("skillpm %s = exit %d; want %d\nstdout: %s\nstderr: %s", strings.Join(tc.args, " "), code, tc.wantCode, stdout, stderr)
			}
			if tc.wantStdout == "" && stdout != "" || !strings.Contains(stdout, tc.wantStdout) {
				t.Errorf("stdout = %q; want it to contain %q", stdout, tc.wantStdout)
			}
			if tc.wantStderr == "" && stderr != "" || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr = %q; want it to contain %q", stderr, tc.wantStderr)
			}
		})
	}
}

func TestLintRules(t *testing.T) {
	code, stdout, _ := lintRun(t, "lint", "--rules")
	if code != command.ExitOK {
		t.Fatalf("lint --rules = exit %d; want 0", code)
	}
	for _, r := range skill.Rules() {
		if !strings.Contains(stdout, r.ID+" ") {
			t.Errorf("lint --rules does not list %s", r.ID)
		}
	}
	code, stdout, _ = lintRun(t, "lint", "--rules", "--json")
	var rules []skill.Rule
	if err := json.Unmarshal([]byte(stdout), &rules); err != nil || code != command.ExitOK || len(rules) != len(skill.Rules()) {
		t.Errorf("lint --rules --json = exit %d, %d rules, %v; want 0, %d rules", code, len(rules), err, len(skill.Rules()))
	}
}

// lintLineDiff lists the lines that differ between want and got.
func lintLineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n  want: %s\n  got:  %s\n", i+1, wl, gl)
			if b.Len() > 4000 {
				b.WriteString("...\n")
				break
			}
		}
	}
	return b.String()
}
