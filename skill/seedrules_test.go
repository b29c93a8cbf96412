package skill

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// uniFM is a Universal frontmatter head (lines 2-5) for the rules below.
var uniFM = []string{`spec_version: "2.1"`, "name: x", "description: d", "version: 1.0.0"}

func uniWith(extra ...string) string {
	return skillMD(body, append(append([]string{}, uniFM...), extra...)...)
}

func TestLintSafety(t *testing.T) {
	runLintCases(t, []lintCase{
		{name: "missing", dir: "x", files: map[string]string{"SKILL.md": uniWith()},
			want: []string{"SKILL.md:1 error safety-missing"}, msg: "requires a safety block"},
		{name: "no-confirmation-list", dir: "x", files: map[string]string{"SKILL.md": uniWith("safety: {redact: {secrets: true}}")},
			want: []string{"SKILL.md:6 error safety-missing"}, msg: "no require_confirmation_for"},
		{name: "no-redact", dir: "x", files: map[string]string{"SKILL.md": uniWith("safety: {require_confirmation_for: [destructive_writes]}")},
			want: []string{"SKILL.md:6 error safety-missing"}, msg: "no redact"},
		{name: "minimum-ok", dir: "x", files: map[string]string{"SKILL.md": uniWith(safetyOK)}},
		{name: "agent-skills-need-none", dir: "x", files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d")}},
	})
}

func TestLintPermissionGlobs(t *testing.T) {
	glob := func(g string) string {
		return uniWith(safetyOK, "permissions:", "  filesystem:", "    read:", "      - '"+g+"'")
	}
	cases := []lintCase{}
	for _, tc := range []struct{ glob, msg string }{
		{"!secret/**", "negation globs"},
		{`docs\*.pdf`, "'/' as the separator"},
		{"/etc/passwd", "absolute"},
		{"C:/data/*.pdf", "absolute"},
		{"../up/**", "'..' leaves the root"},
		{"docs/../../x", "'..' leaves the root"},
		{"[unclosed", "malformed"},
		{"reports/**.pdf", "'**' must be a whole path segment"},
		{"", "empty"},
	} {
		cases = append(cases, lintCase{name: "bad " + tc.glob, dir: "x", files: map[string]string{"SKILL.md": glob(tc.glob)},
			want: []string{"SKILL.md:10 error permissions-glob"}, msg: tc.msg})
	}
	for _, ok := range []string{"**/*.pdf", "output/**", "docs/*.md", "a/**/b/*.txt", "[abc].txt", "file?.md"} {
		cases = append(cases, lintCase{name: "ok " + ok, dir: "x", files: map[string]string{"SKILL.md": glob(ok)}})
	}
	runLintCases(t, cases)
}

func TestLintSkillTooLarge(t *testing.T) {
	l := newLinter(t)
	for _, tc := range []struct {
		name, md string
		size     int64
		want     []string
	}{
		{"agent-skills-warns", skillMD(body, "name: x", "description: d"), MaxSkillSize + 1, []string{":0 warning skill-too-large"}},
		{"universal-errors", uniWith(safetyOK), MaxSkillSize + 1, []string{":0 error skill-too-large"}},
		{"at-the-limit-ok", skillMD(body, "name: x", "description: d"), MaxSkillSize - 200, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, "x", map[string]string{"SKILL.md": tc.md, "assets/a.bin": ""})
			if err := os.Truncate(filepath.Join(dir, "assets", "a.bin"), tc.size); err != nil {
				t.Fatal(err)
			}
			res := l.Lint(dir, LintOptions{})
			var got []string
			for _, k := range diagKeys(dir, res.Diagnostics) {
				got = append(got, strings.TrimPrefix(k, "."))
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("diagnostics = %q; want %q", got, tc.want)
			}
		})
	}
}

func TestLintPlaceholders(t *testing.T) {
	runLintCases(t, []lintCase{
		{name: "description", dir: "x", files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: Describe what x does and when an agent should use it.")},
			want: []string{"SKILL.md:3 warning placeholder-text"}, msg: "description is still the placeholder"},
		{name: "body", dir: "x", files: map[string]string{"SKILL.md": skillMD("\n# x\n\nStep-by-step instructions for the agent.\n", "name: x", "description: d")},
			want: []string{"SKILL.md:8 warning placeholder-text"}, msg: "Step-by-step"},
		{name: "real-text-ok", dir: "x", files: map[string]string{"SKILL.md": skillMD("\n# x\n\nDescribe the bug to the user.\n", "name: x", "description: Describe what went wrong.")}},
	})
}

func TestLintHostOverrides(t *testing.T) {
	tool := []string{"tools:", "  - name: t", "    description: d", "    " + strictInput, "    implementation: {runtime: python, entrypoint: scripts/t.py}"}
	ov := func(lines ...string) map[string]string {
		fm := append(append([]string{safetyOK}, tool...), "host_overrides:")
		return map[string]string{"SKILL.md": uniWith(append(fm, lines...)...), "scripts/t.py": handlerPy}
	}
	runLintCases(t, []lintCase{
		{name: "every-reserved-host-ok", dir: "x", files: ov(
			"  - {host: claude-api, config: {description: Shorter.}}",
			"  - {host: claude-code, config: {}}",
			"  - {host: mcp, config: {tools: [{name: t, description: MCP text.}]}}",
			"  - {host: openai-responses, config: {tools: [{name: t, input_schema: {type: object, additionalProperties: false, properties: {a: {type: string}}, required: [a]}}]}}",
			"  - {host: codex-cli, config: {permissions: {network: {outbound: []}}}}")},
		{name: "unknown-host", dir: "x", files: ov("  - {host: not-a-host, config: {}}"),
			want: []string{"SKILL.md:13 warning host-unknown"}, msg: `"not-a-host"`},
		{name: "breaks-schema", dir: "x", files: ov("  - {host: mcp, config: {version: [1]}}"),
			want: []string{"SKILL.md:13 error host-override-invalid"}, msg: "with the override applied, version"},
		{name: "unknown-field", dir: "x", files: ov("  - {host: mcp, config: {colour: red}}"),
			want: []string{"SKILL.md:13 error host-override-invalid"}, msg: "colour"},
		{name: "renames-skill", dir: "x", files: ov("  - {host: mcp, config: {name: y}}"),
			want: []string{"SKILL.md:13 error host-override-invalid"}, msg: "rename the skill"},
		{name: "unknown-tool", dir: "x", files: ov("  - {host: mcp, config: {tools: [{name: u, description: e}]}}"),
			want: []string{"SKILL.md:13 error host-override-invalid"}, msg: `names no declared tool ("u")`},
		{name: "agent-skills-profile-no-schema", dir: "x", files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d", "host_overrides:", "  - {host: claude-code, config: {description: Shorter.}}")}},
		{name: "agent-skills-profile-still-no-rename", dir: "x", files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d", "host_overrides:", "  - {host: claude-code, config: {name: y}}")},
			want: []string{"SKILL.md:5 error host-override-invalid"}, msg: "rename the skill"},
		{name: "tool-schema-broken", dir: "x", files: ov("  - {host: mcp, config: {tools: [{name: t, input_schema: 3}]}}"),
			want: []string{"SKILL.md:13 error host-override-invalid"}, msg: "tools[0].input_schema"},
	})
}

func TestApplyHostOverride(t *testing.T) {
	tools := []Tool{{Name: "t", Description: "base", InputSchema: json.RawMessage(`{"type":"object"}`)}, {Name: "u", Description: "other"}}
	desc, got, err := ApplyHostOverride("Base.", tools, map[string]any{
		"description": "For this host.",
		"tools":       []any{map[string]any{"name": "t", "description": "host text", "input_schema": map[string]any{"required": []any{"a"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if desc != "For this host." || got[0].Description != "host text" || got[1].Description != "other" {
		t.Errorf("ApplyHostOverride() = %q, %+v; want the overlay's description and tool text", desc, got)
	}
	if string(got[0].InputSchema) != `{"required":["a"],"type":"object"}` {
		t.Errorf("input_schema = %s; want the base merged with the overlay", got[0].InputSchema)
	}
	if tools[0].Description != "base" {
		t.Errorf("ApplyHostOverride modified its input")
	}
	if d, same, err := ApplyHostOverride("Base.", tools, nil); err != nil || d != "Base." || len(same) != 2 {
		t.Errorf("nil config = %q, %v; want the input unchanged", d, err)
	}
	if _, _, err := ApplyHostOverride("Base.", tools, map[string]any{"tools": []any{map[string]any{"name": "zz"}}}); !errors.Is(err, ErrBadOverride) {
		t.Errorf("unknown tool: err = %v; want ErrBadOverride", err)
	}
}

func TestLintSmokeTests(t *testing.T) {
	tool := []string{"tools:", "  - name: t", "    description: d",
		"    input_schema: {type: object, additionalProperties: false, properties: {text: {type: string}}, required: [text]}",
		"    output_schema: {type: object, properties: {n: {type: integer}}}",
		"    implementation: {runtime: python, entrypoint: scripts/t.py}", "evaluation:", "  smoke_tests:"}
	st := func(lines ...string) map[string]string {
		return map[string]string{"SKILL.md": uniWith(append(append([]string{safetyOK}, tool...), lines...)...), "scripts/t.py": handlerPy}
	}
	runLintCases(t, []lintCase{
		{name: "ok", dir: "x", files: st(
			"    - {name: eq, tool: t, input: {text: a}, expect: {equals: {n: 1}}}",
			"    - {tool: t, input: {text: a}, expect: {schema: {type: object}}}",
			"    - {tool: t, input: {text: a}, expect: {contains: '1'}}")},
		{name: "unknown-tool", dir: "x", files: st("    - {tool: nope, input: {}, expect: {contains: a}}"),
			want: []string{"SKILL.md:15 error smoke-test"}, msg: `calls tool "nope", which the skill does not declare`},
		{name: "bad-input", dir: "x", files: st("    - {tool: t, input: {text: 3}, expect: {contains: a}}"),
			want: []string{"SKILL.md:15 error smoke-test"}, msg: "input does not satisfy t's input_schema: text"},
		{name: "equals-breaks-output-schema", dir: "x", files: st("    - {tool: t, input: {text: a}, expect: {equals: {n: x}}}"),
			want: []string{"SKILL.md:15 error smoke-test"}, msg: "can never be t's output"},
		{name: "no-expectation", dir: "x", files: st("    - {tool: t, input: {text: a}}"),
			want: []string{"SKILL.md:15 error smoke-test"}, msg: "no expect"},
		{name: "two-expectations", dir: "x", files: st("    - {tool: t, input: {text: a}, expect: {contains: a, equals: 1}}"),
			want: []string{"SKILL.md:15 error smoke-test"}, msg: "exactly one"},
		{name: "bad-schema", dir: "x", files: st("    - {tool: t, input: {text: a}, expect: {schema: {type: 5}}}"),
			want: []string{"SKILL.md:15 error smoke-test"}, msg: "not valid JSON Schema"},
		{name: "not-a-list", dir: "x", files: map[string]string{"SKILL.md": uniWith(safetyOK, "evaluation: {smoke_tests: 3}")},
			want: []string{"SKILL.md:7 error smoke-test"}, msg: "must be a list"},
	})
}

func TestExpectationCheck(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name   string
		e      Expectation
		output string
		ok     bool
	}{
		{"equals-object", Expectation{Equals: map[string]any{"n": 1}, HasEquals: true}, `{"n": 1.0}`, true},
		{"equals-differs", Expectation{Equals: map[string]any{"n": 1}, HasEquals: true}, `{"n": 2}`, false},
		{"equals-null", Expectation{HasEquals: true}, `null`, true},
		{"equals-extra-key", Expectation{Equals: map[string]any{"n": 1}, HasEquals: true}, `{"n": 1, "m": 2}`, false},
		{"schema-ok", Expectation{Schema: map[string]any{"type": "array"}}, `[]`, true},
		{"schema-fails", Expectation{Schema: map[string]any{"type": "array"}}, `{}`, false},
		{"contains-string-output", Expectation{Contains: str("hello")}, `"say hello"`, true},
		{"contains-json-text", Expectation{Contains: str(`"n":1`)}, `{"n":1}`, true},
		{"contains-missing", Expectation{Contains: str("bye")}, `"hello"`, false},
		{"not-json", Expectation{Contains: str("x")}, `x`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.e.Check(json.RawMessage(tc.output))
			if (err == nil) != tc.ok {
				t.Errorf("Check(%s) = %v; want ok=%v", tc.output, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrSmokeFailed) {
				t.Errorf("Check(%s) = %v; want it to wrap ErrSmokeFailed", tc.output, err)
			}
		})
	}
}
