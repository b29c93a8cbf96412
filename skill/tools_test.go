package skill

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestSkillToolsParametersSchema(t *testing.T) {
	dir := writeSkill(t, "x", map[string]string{
		"SKILL.md": skillMD(body, "name: x", "description: d"),
		"tools.json": `[
  {"name": "count", "description": "Count.", "script": "scripts/count.js", "parameters": {
    "text": {"type": "string", "description": "Text."},
    "unit": {"type": "string", "description": "Unit.", "enum": ["words", "lines"], "optional": true},
    "max": {"type": "number", "description": "Cap.", "optional": false}
  }},
  {"name": "stub", "description": "Load the skill."}
]`,
		"scripts/count.js": "export default async () => 0;\n",
	})
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tools) != 2 {
		t.Fatalf("len(Tools) = %d; want 2", len(s.Tools))
	}
	count := s.Tool("count")
	if count == nil {
		t.Fatal(`Tool("count") = nil`)
	}
	var got map[string]any
	if err := json.Unmarshal(count.InputSchema, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type":                 "object",
		"additionalProperties": false,
		"required":             []any{"max", "text"},
		"properties": map[string]any{
			"text": map[string]any{"type": "string", "description": "Text."},
			"unit": map[string]any{"type": "string", "description": "Unit.", "enum": []any{"words", "lines"}},
			"max":  map[string]any{"type": "number", "description": "Cap."},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("InputSchema = %s\nwant required = the non-optional parameters, sorted, and no optional keys", count.InputSchema)
	}
	if _, err := CompileSchema(count.InputSchema); err != nil {
		t.Errorf("CompileSchema(converted parameters) error = %v", err)
	}
	wantTool := Tool{Name: "count", Description: "Count.", Runtime: "node", Entrypoint: "scripts/count.js", Source: FromToolsJSON, Format: FormatSkillTools}
	if count.Name != wantTool.Name || count.Runtime != wantTool.Runtime || count.Entrypoint != wantTool.Entrypoint || count.Source != wantTool.Source || count.Format != wantTool.Format || count.line != 2 {
		t.Errorf("Tool = %+v (line %d); want %+v on line 2", *count, count.line, wantTool)
	}
	stub := s.Tool("stub")
	if stub == nil || stub.Format != FormatSkillTools || stub.Entrypoint != "" || stub.line != 7 {
		t.Errorf(`Tool("stub") = %+v; want a Skill Tools stub with no entrypoint, on line 7`, stub)
	}
	if string(stub.InputSchema) != `{"additionalProperties":false,"properties":{},"required":[],"type":"object"}` {
		t.Errorf("stub InputSchema = %s; want an empty strict object schema", stub.InputSchema)
	}
	if s.InferProfile() != ProfileSkillTools {
		t.Errorf("InferProfile() = %q; want %q", s.InferProfile(), ProfileSkillTools)
	}
}

func TestToolSourcePriority(t *testing.T) {
	fm := uniSkill(uniTool("from-frontmatter", "description: d", strictInput, pyImpl)...)
	tj := `[{"name": "from-tools-json", "description": "d", "input_schema": {"type": "object"}, "implementation": {"runtime": "python", "entrypoint": "scripts/t.py"}}]`
	tests := []struct {
		name       string
		files      map[string]string
		wantTool   string
		wantSource ToolSource
		wantStale  bool
	}{
		{"frontmatter-only", map[string]string{"SKILL.md": fm}, "from-frontmatter", FromFrontmatter, false},
		{"tools-json-only", map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d"), "tools.json": tj}, "from-tools-json", FromToolsJSON, false},
		{"both-frontmatter-wins", map[string]string{"SKILL.md": fm, "tools.json": tj}, "from-frontmatter", FromFrontmatter, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.files["scripts/t.py"] = handlerPy
			dir := writeSkill(t, "x", tc.files)
			s, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Tools) != 1 || s.Tools[0].Name != tc.wantTool || s.Tools[0].Source != tc.wantSource {
				t.Fatalf("Tools = %+v; want only %s from %s", s.Tools, tc.wantTool, tc.wantSource)
			}
			stale := false
			for _, d := range newLinter(t).Lint(dir, LintOptions{}).Diagnostics {
				stale = stale || d.Rule == "tools-json-stale"
			}
			if stale != tc.wantStale {
				t.Errorf("tools-json-stale reported = %v; want %v", stale, tc.wantStale)
			}
		})
	}
}

func TestUniversalToolFields(t *testing.T) {
	dir := writeSkill(t, "x", map[string]string{
		"scripts/t.py": handlerPy,
		"SKILL.md": uniSkill(uniTool("t", "description: d", strictInput,
			"output_schema: {type: object}",
			`confirmation: {level: destructive_writes, prompt: "Sure?"}`,
			"implementation:",
			"  runtime: python",
			"  entrypoint: scripts/t.py",
			"  handler: run",
			"  timeout_seconds: 30",
			"  dependencies: {pip: [pdfplumber==0.11.4], system: [poppler-utils], notes: vendor them}")...),
	})
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Tool("t")
	if got == nil {
		t.Fatal(`Tool("t") = nil`)
	}
	if got.Format != FormatUniversal || got.Runtime != "python" || got.Entrypoint != "scripts/t.py" || got.Handler != "run" || got.TimeoutSeconds != 30 || got.line != 7 {
		t.Errorf("Tool = %+v; want a Universal python tool with handler run, 30 s timeout, on line 7", *got)
	}
	if got.Confirmation == nil || *got.Confirmation != (ToolConfirm{Level: "destructive_writes", Prompt: "Sure?"}) {
		t.Errorf("Confirmation = %+v; want destructive_writes / Sure?", got.Confirmation)
	}
	if d := got.Dependencies; d == nil || strings.Join(d.Pip, ",") != "pdfplumber==0.11.4" || strings.Join(d.System, ",") != "poppler-utils" || d.Notes != "vendor them" {
		t.Errorf("Dependencies = %+v; want pip, system and notes", d)
	}
	if string(got.OutputSchema) != `{"type":"object"}` {
		t.Errorf("OutputSchema = %s; want {\"type\":\"object\"}", got.OutputSchema)
	}
}

func TestRuntimeForPath(t *testing.T) {
	for p, want := range map[string]string{
		"scripts/a.js": "node", "a.mjs": "node", "a.PY": "python", "run.sh": "bash",
		"a.ts": "", "a.rb": "", "": "", "scripts/noext": "",
	} {
		if got := RuntimeForPath(p); got != want {
			t.Errorf("RuntimeForPath(%q) = %q; want %q", p, got, want)
		}
	}
}

func TestCompileSchema(t *testing.T) {
	tests := []struct {
		name    string
		schema  string
		wantErr string
	}{
		{"object", `{"type": "object", "properties": {"a": {"type": "string"}}}`, ""},
		{"local-ref", `{"$defs": {"s": {"type": "string"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/s"}}}`, ""},
		{"bad-type", `{"type": "text"}`, "not valid against metaschema"},
		{"remote-ref", `{"$ref": "https://example.com/schema.json"}`, "not allowed"},
		{"file-ref", `{"$ref": "file:///etc/passwd"}`, "not allowed"},
		{"not-json", `{`, "unexpected EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompileSchema(json.RawMessage(tc.schema))
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("CompileSchema(%s) error = %v; want %q", tc.schema, err, tc.wantErr)
			}
		})
	}
}
