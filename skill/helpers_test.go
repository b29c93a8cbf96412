package skill

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeSkill writes files (slash-separated paths relative to the skill) into
// a fresh folder called name and returns the folder's path.
func writeSkill(t testing.TB, name string, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(files) == 0 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// safetyOK is the minimum safety block of the Universal spec (§8), on one
// line, for Universal fixtures that test other rules.
const safetyOK = "safety: {require_confirmation_for: [], redact: {secrets: true, pii: true}}"

// skillMD builds a SKILL.md from frontmatter lines and a body.
func skillMD(body string, fm ...string) string {
	return "---\n" + strings.Join(fm, "\n") + "\n---\n" + body
}

func newLinter(t testing.TB) *Linter {
	t.Helper()
	l, err := NewLinter()
	if err != nil {
		t.Fatalf("NewLinter() error = %v", err)
	}
	return l
}

// diagKeys renders diagnostics as "FILE:LINE severity rule", with FILE
// relative to dir, for exact comparison in tables.
func diagKeys(dir string, ds []Diagnostic) []string {
	keys := make([]string, 0, len(ds))
	for _, d := range ds {
		f := d.File
		if r, err := filepath.Rel(dir, d.File); err == nil && !strings.HasPrefix(r, "..") {
			f = filepath.ToSlash(r)
		}
		keys = append(keys, fmt.Sprintf("%s:%d %s %s", f, d.Line, d.Severity, d.Rule))
	}
	return keys
}

// checkDiags compares diagnostics against want keys and, when wantMsg is
// set, requires the first diagnostic's message to contain it.
func checkDiags(t *testing.T, dir string, ds []Diagnostic, want []string, wantMsg string) {
	t.Helper()
	got := diagKeys(dir, ds)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics:\ngot  %q\nwant %q\nmessages:\n%s", got, want, messages(ds))
	}
	if wantMsg != "" && (len(ds) == 0 || !strings.Contains(ds[0].Message, wantMsg)) {
		t.Errorf("first message:\ngot  %q\nwant it to contain %q", messages(ds), wantMsg)
	}
	for _, d := range ds {
		if d.Message == "" || d.Fix == "" {
			t.Errorf("%s: got message %q, fix %q; want both set", d.Rule, d.Message, d.Fix)
		}
		if strings.Contains(d.Fix, "\n") || strings.Contains(d.Message, "\n") {
			t.Errorf("%s: got a multi-line message or fix: %q / %q", d.Rule, d.Message, d.Fix)
		}
	}
}

func messages(ds []Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "  %s\n", d)
	}
	return b.String()
}
