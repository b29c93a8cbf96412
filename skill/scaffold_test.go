package skill

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// TestScaffoldPassesStrictLint: what init writes has no lint errors, only
// placeholder-text warnings; once the author replaces the placeholders the
// skill passes lint --strict.
func TestScaffoldPassesStrictLint(t *testing.T) {
	tests := []struct {
		name        string
		opts        ScaffoldOptions
		wantFiles   []string
		wantProfile Profile
	}{
		{"plain", ScaffoldOptions{}, []string{"SKILL.md"}, ProfileAgentSkills},
		{"python", ScaffoldOptions{Tool: "word-count", Runtime: "python"}, []string{"scripts/word_count.py", "SKILL.md"}, ProfileUniversal},
		{"default-runtime", ScaffoldOptions{Tool: "t"}, []string{"scripts/t.py", "SKILL.md"}, ProfileUniversal},
		{"node", ScaffoldOptions{Tool: "word-count", Runtime: "node"}, []string{"scripts/word_count.mjs", "SKILL.md"}, ProfileUniversal},
		{"bash", ScaffoldOptions{Tool: "word-count", Runtime: "bash"}, []string{"scripts/word_count.sh", "SKILL.md"}, ProfileUniversal},
		{"skill-tools by name", ScaffoldOptions{Tool: "count_words"}, []string{"scripts/count_words.py", "SKILL.md", "tools.json"}, ProfileSkillTools},
		{"skill-tools node", ScaffoldOptions{Tool: "count_words", Runtime: "node"}, []string{"scripts/count_words.js", "SKILL.md", "tools.json"}, ProfileSkillTools},
		{"skill-tools bash", ScaffoldOptions{Tool: "count", Runtime: "bash", Format: FormatSkillTools}, []string{"scripts/count.sh", "SKILL.md", "tools.json"}, ProfileSkillTools},
		{"quoted-description", ScaffoldOptions{Description: "Say \"hi\": then\nstop. Use when: greeted \\o/"}, []string{"SKILL.md"}, ProfileAgentSkills},
	}
	l := newLinter(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "my-skill")
			files, err := Scaffold(dir, tc.opts)
			if err != nil {
				t.Fatalf("Scaffold() error = %v", err)
			}
			if !slices.Equal(files, tc.wantFiles) {
				t.Errorf("Scaffold() files = %q; want %q", files, tc.wantFiles)
			}
			res := l.Lint(dir, LintOptions{})
			placeholders := 0
			for _, d := range res.Diagnostics {
				if d.Rule != "placeholder-text" {
					t.Errorf("Lint() %s; want only placeholder-text warnings", d)
				}
				placeholders++
			}
			if placeholders == 0 {
				t.Errorf("Lint() found no placeholder-text; the scaffold's placeholders must be flagged")
			}
			replacePlaceholders(t, dir)
			res = l.Lint(dir, LintOptions{Strict: true})
			if len(res.Diagnostics) != 0 || res.Profile != tc.wantProfile {
				t.Errorf("Lint(strict) after replacing placeholders = profile %q with\n%swant %q and no diagnostics", res.Profile, messages(res.Diagnostics), tc.wantProfile)
			}
			s := res.Skill
			if s == nil || s.Name() != "my-skill" || s.Frontmatter.Version != "0.1.0" {
				t.Fatalf("scaffolded skill = %+v; want my-skill 0.1.0", s)
			}
			if tc.opts.Description != "" && s.Frontmatter.Description != strings.ReplaceAll(tc.opts.Description, "\n", " ") {
				t.Errorf("Description = %q; want %q", s.Frontmatter.Description, tc.opts.Description)
			}
		})
	}
}

func TestScaffoldRefuses(t *testing.T) {
	tests := []struct {
		name    string
		opts    ScaffoldOptions
		wantErr string
	}{
		{"bad-name", ScaffoldOptions{Name: "My_Skill"}, `"My_Skill" is not a valid skill name`},
		{"bad-tool", ScaffoldOptions{Tool: "Word_Count"}, `tool name "Word_Count" fits neither format`},
		{"hyphen in skill-tools", ScaffoldOptions{Tool: "word-count", Format: FormatSkillTools}, `must match ^[a-z][a-z0-9_]*$ in the Skill Tools format (e.g. "word_count")`},
		{"underscore in universal", ScaffoldOptions{Tool: "word_count", Format: FormatUniversal}, `--format skill-tools allows underscores`},
		{"bad-format", ScaffoldOptions{Tool: "t", Format: "yaml"}, `unknown format "yaml"`},
		{"bad-runtime", ScaffoldOptions{Tool: "t", Runtime: "ruby"}, `unknown runtime "ruby"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "new")
			files, err := Scaffold(dir, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || files != nil {
				t.Fatalf("Scaffold() = %q, %v; want no files and an error containing %q", files, err, tc.wantErr)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("Stat(dir) error = %v; want the folder never created", err)
			}
		})
	}
}

func TestScaffoldExisting(t *testing.T) {
	dir := writeSkill(t, "x", map[string]string{"SKILL.md": "mine\n"})
	if _, err := Scaffold(dir, ScaffoldOptions{Tool: "t"}); err == nil || !strings.Contains(err.Error(), "already exists; use --force") {
		t.Fatalf("Scaffold() error = %v; want SKILL.md already exists", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, FileName)); string(b) != "mine\n" {
		t.Errorf("SKILL.md = %q after a refused Scaffold; want it untouched", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "scripts")); !os.IsNotExist(err) {
		t.Errorf("Stat(scripts) error = %v; want nothing written", err)
	}
	if _, err := Scaffold(dir, ScaffoldOptions{Force: true}); err != nil {
		t.Fatalf("Scaffold(Force) error = %v", err)
	}
	if s, err := Load(dir); err != nil || s.Name() != "x" {
		t.Errorf("Load() after Scaffold(Force) = %v, %v; want skill x", s, err)
	}
}

func TestScaffoldNameFromFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "My Skill_v2")
	if _, err := Scaffold(dir, ScaffoldOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := Load(dir)
	if err != nil || s.Name() != "my-skill-v2" {
		t.Fatalf("Load() = %v, %v; want name my-skill-v2", s, err)
	}
}

// TestScaffoldHandlersRun runs each generated handler the way the seeds'
// handler contract says a runtime calls it and checks the JSON it returns
// against the tool's output_schema.
func TestScaffoldHandlersRun(t *testing.T) {
	const input = `{"text":"hi","__workDir":"/tmp"}`
	tests := []struct {
		runtime string
		command func(script string) (string, []string)
		want    string // exact result; "" to check the schema only
	}{
		{"python", func(s string) (string, []string) { return "python3", []string{s} }, "hi"},
		{"node", func(s string) (string, []string) {
			u := url.URL{Scheme: "file", Path: s}
			js := "import handler from " + jsString(u.String()) + ";\n" +
				"let s = ''; for await (const c of process.stdin) s += c;\n" +
				"console.log(JSON.stringify(await handler(JSON.parse(s))));"
			return "node", []string{"--input-type=module", "-e", js}
		}, "hi"},
		{"bash", func(s string) (string, []string) { return "bash", []string{s} }, ""},
		{"bash", func(s string) (string, []string) { return s, nil }, ""}, // executable, via its shebang
	}
	for _, tc := range tests {
		t.Run(tc.runtime, func(t *testing.T) {
			name, args := tc.command("")
			if _, err := exec.LookPath(name); err != nil && name != "" {
				t.Skipf("%s is not installed: %v", name, err)
			}
			dir := filepath.Join(t.TempDir(), "echo")
			if _, err := Scaffold(dir, ScaffoldOptions{Tool: "echo-text", Runtime: tc.runtime}); err != nil {
				t.Fatal(err)
			}
			s, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			tool := s.Tool("echo-text")
			script := filepath.Join(dir, filepath.FromSlash(tool.Entrypoint))
			name, args = tc.command(script)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, name, args...)
			cmd.Dir = t.TempDir()
			cmd.Stdin = strings.NewReader(input)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s %q: %v\nstderr: %s", name, args, err, stderr.String())
			}
			got, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("handler output %q is not JSON: %v", out, err)
			}
			sch, err := CompileSchema(tool.OutputSchema)
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(got); err != nil {
				t.Errorf("handler output %s does not match output_schema: %v", out, err)
			}
			if tc.want != "" {
				if m, _ := got.(map[string]any); m["result"] != tc.want {
					t.Errorf("handler output = %s; want result %q", out, tc.want)
				}
			}
		})
	}
}

func TestScaffoldPythonHandlerArgv(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skipf("python3 is not installed: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "echo")
	if _, err := Scaffold(dir, ScaffoldOptions{Tool: "echo-text"}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("python3", filepath.Join(dir, "scripts", "echo_text.py"), `{"text":"argv","__workDir":"/tmp"}`).Output()
	if err != nil || strings.TrimSpace(string(out)) != `{"result": "argv"}` {
		t.Errorf("python3 echo_text.py ARGS = %q, %v; want {\"result\": \"argv\"}", out, err)
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestScaffoldNeverOverwritesAHandler(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-tool")
	handler := filepath.Join(dir, "scripts", "extract_text.py")
	if err := os.MkdirAll(filepath.Dir(handler), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(handler, []byte("print('mine')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Scaffold(dir, ScaffoldOptions{Tool: "extract-text", Runtime: "python"})
	if err == nil || !strings.Contains(err.Error(), "extract_text.py already exists") {
		t.Fatalf("err = %v; want a refusal naming the handler", err)
	}
	if b, _ := os.ReadFile(handler); string(b) != "print('mine')\n" {
		t.Errorf("handler overwritten: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); !os.IsNotExist(err) {
		t.Errorf("SKILL.md written by a refused init: %v", err)
	}
}

// replacePlaceholders does what an author does after skillpm init: writes
// real text where the scaffold left placeholders.
func replacePlaceholders(t *testing.T, dir string) {
	t.Helper()
	for _, name := range []string{FileName, ToolsFileName} {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) && name == ToolsFileName {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, ph := range scaffoldPlaceholders {
			s = strings.ReplaceAll(s, ph, "Real text.")
		}
		s = strings.Replace(s, "Describe what my-skill"+placeholderDescription, "Does real work. Use when asked.", 1)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
