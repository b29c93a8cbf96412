package skill

import (
	"strings"
	"testing"
)

// uniSkill is a Universal SKILL.md whose tools start on line 7.
func uniSkill(tools ...string) string {
	fm := []string{`spec_version: "2.1"`, "name: x", "description: d", "version: 1.0.0", "tools:"}
	return skillMD(body, append(append(fm, tools...), safetyOK)...)
}

// uniTool is one tool entry; extra lines follow the name, indented.
func uniTool(name string, extra ...string) []string {
	lines := []string{"  - name: " + name}
	for _, e := range extra {
		lines = append(lines, "    "+e)
	}
	return lines
}

const (
	strictInput = "input_schema: {type: object, additionalProperties: false, properties: {}}"
	pyImpl      = "implementation: {runtime: python, entrypoint: scripts/t.py}"
	handlerPy   = "def handler(args):\n    return {}\n"
)

func TestLintSkillToolsRules(t *testing.T) {
	md := skillMD(body, "name: x", "description: d")
	tj := func(json string) map[string]string {
		return map[string]string{"SKILL.md": md, "tools.json": json, "scripts/t.js": "export default async () => 1;\n"}
	}
	cases := []lintCase{
		{name: "clean-with-stub", dir: "x", files: tj(`[
  {"name": "t", "description": "d", "script": "scripts/t.js", "parameters": {"a": {"type": "string", "description": "a"}}},
  {"name": "stub", "description": "load the skill for instructions"}
]`)},
		{name: "tool-name-missing", dir: "x", files: tj("[\n  {\"description\": \"d\"}\n]"),
			want: []string{"tools.json:2 error tool-name-missing"}},
		{name: "tool-description-missing", dir: "x", files: tj("[\n  {\"name\": \"a\", \"description\": \"\"},\n  {\"name\": \"b\"}\n]"),
			want: []string{"tools.json:2 error tool-description-missing", "tools.json:3 error tool-description-missing"}, msg: `"a"`},
		{name: "tool-name-format", dir: "x", files: tj("[\n  {\"name\": \"Count-Words\", \"description\": \"d\"},\n  {\"name\": \"9lives\", \"description\": \"d\"}\n]"),
			want: []string{"tools.json:2 error tool-name-format", "tools.json:3 error tool-name-format"}, msg: "^[a-z][a-z0-9_]*$"},
		{name: "tool-name-duplicate", dir: "x", files: tj("[\n  {\"name\": \"a\", \"description\": \"d\"},\n\n  {\"name\": \"a\", \"description\": \"d\"}\n]"),
			want: []string{"tools.json:4 error tool-name-duplicate"}, msg: "also on line 2"},
		{name: "tool-parameter", dir: "x", files: tj(`[{"name": "a", "description": "d", "parameters": {
  "z": {"type": "str", "description": "z"}, "y": {"type": "string"}, "x": 1}}]`),
			want: []string{"tools.json:1 error tool-parameter", "tools.json:1 error tool-parameter", "tools.json:1 error tool-parameter"}, msg: `parameter "x" must be an object`},
		{name: "tool-parameters-not-object", dir: "x", files: tj(`[{"name": "a", "description": "d", "parameters": ["x"]}]`),
			want: []string{"tools.json:1 error tool-parameter"}, msg: "parameters must be an object"},
		{name: "tool-entrypoint-missing", dir: "x", files: tj(`[{"name": "a", "description": "d", "script": "scripts/gone.js"}]`),
			want: []string{"tools.json:1 error tool-entrypoint-missing"}, msg: `"scripts/gone.js"`},
		{name: "tool-entrypoint-outside", dir: "x", files: tj(`[{"name": "a", "description": "d", "script": "../t.js"}]`),
			want: []string{"tools.json:1 error tool-entrypoint-outside"}},
		{name: "any-extension-for-skill-tools", dir: "x",
			files: map[string]string{"SKILL.md": md, "tools.json": `[{"name": "a", "description": "d", "script": "scripts/a.rb"}]`, "scripts/a.rb": "p 1\n"}},
		{name: "tools-json-syntax", dir: "x", files: tj("[\n  {\"name\": \"a\",\n   \"description\": \"d\",}\n]"),
			want: []string{"tools.json:3 error tools-json-syntax"}, msg: "not valid JSON"},
		{name: "tools-json-not-array", dir: "x", files: tj(`{"name": "a", "description": "d"}`),
			want: []string{"tools.json:1 error tools-json-syntax"}, msg: "JSON array"},
		{name: "tools-json-bom-ok", dir: "x", files: tj("\ufeff[{\"name\": \"a\", \"description\": \"d\"}]")},
		{name: "tools-json-directory", dir: "x", files: map[string]string{"SKILL.md": md, "tools.json/.keep": ""},
			want: []string{"tools.json:0 error tools-json-syntax"}, msg: "not a regular file"},
		{name: "tools-json-too-large", dir: "x", files: tj(`[{"name": "a", "description": "` + strings.Repeat("d", 100) + `"}]`),
			opts: LintOptions{Limits: Limits{MaxToolsFile: 64}},
			want: []string{"tools.json:0 error tools-json-syntax"}, msg: "over the 64 byte limit"},
	}
	runLintCases(t, cases)
}

func TestLintUniversalToolRules(t *testing.T) {
	withPy := func(md string) map[string]string {
		return map[string]string{"SKILL.md": md, "scripts/t.py": handlerPy}
	}
	tool := func(name string, extra ...string) map[string]string {
		return withPy(uniSkill(uniTool(name, append([]string{"description: d"}, extra...)...)...))
	}
	cases := []lintCase{
		{name: "clean", dir: "x", files: tool("t", strictInput, pyImpl)},
		{name: "tool-name-format", dir: "x", files: tool("Extract_Text", strictInput, pyImpl),
			want: []string{"SKILL.md:7 error tool-name-format", "SKILL.md:7 error universal-schema"}, msg: "^[a-z0-9-]+$"},
		{name: "tool-name-duplicate", dir: "x",
			files: withPy(uniSkill(append(uniTool("t", "description: d", strictInput, pyImpl), uniTool("t", "description: e", strictInput, pyImpl)...)...)),
			want:  []string{"SKILL.md:11 error tool-name-duplicate"}, msg: "also on line 7"},
		{name: "tool-description-missing", dir: "x", files: withPy(uniSkill(uniTool("t", strictInput, pyImpl)...)),
			want: []string{"SKILL.md:7 error tool-description-missing", "SKILL.md:7 error universal-schema"}},
		{name: "tool-input-schema-missing", dir: "x", files: tool("t", pyImpl),
			want: []string{"SKILL.md:7 error tool-input-schema", "SKILL.md:7 error universal-schema"}, msg: "has no input_schema"},
		{name: "tool-input-schema-not-object-type", dir: "x", files: tool("t", "input_schema: {type: array}", pyImpl),
			want: []string{"SKILL.md:7 error tool-input-schema"}, msg: "must have type: object"},
		{name: "tool-input-schema-invalid", dir: "x", files: tool("t", "input_schema: {type: object, additionalProperties: false, properties: {a: {type: text}}}", pyImpl),
			want: []string{"SKILL.md:7 error tool-input-schema"}, msg: "not valid JSON Schema 2020-12"},
		{name: "tool-input-schema-external-ref", dir: "x", files: tool("t", "input_schema: {$ref: 'https://example.com/s.json'}", pyImpl),
			want: []string{"SKILL.md:7 error tool-input-schema"}, msg: "not allowed"},
		{name: "tool-output-schema", dir: "x", files: tool("t", strictInput, "output_schema: {type: object, required: yes}", pyImpl),
			want: []string{"SKILL.md:7 error tool-output-schema"}, msg: "output_schema is not valid"},
		{name: "tool-strict-schema", dir: "x", files: tool("t", "input_schema: {type: object, properties: {a: {type: string}}}", pyImpl),
			want: []string{"SKILL.md:7 warning tool-strict-schema"}, msg: "input_schema does not set additionalProperties: false"},
		{name: "tool-strict-schema-items", dir: "x", files: tool("t", "input_schema: {type: object, additionalProperties: false, properties: {a: {type: array, items: {type: object}}}}", pyImpl),
			want: []string{"SKILL.md:7 warning tool-strict-schema"}, msg: "input_schema.properties.a.items"},
		{name: "tool-implementation-missing", dir: "x", files: tool("t", strictInput),
			want: []string{"SKILL.md:7 error tool-implementation", "SKILL.md:7 error universal-schema"}},
		{name: "tool-implementation-runtime", dir: "x", files: tool("t", strictInput, "implementation: {runtime: deno, entrypoint: scripts/t.py}"),
			want: []string{"SKILL.md:7 error tool-implementation", "SKILL.md:10 error universal-schema"}, msg: `runtime "deno"`},
		{name: "tool-entrypoint-missing", dir: "x", files: tool("t", strictInput, "implementation: {runtime: python, entrypoint: scripts/gone.py}"),
			want: []string{"SKILL.md:7 error tool-entrypoint-missing"}},
		{name: "tool-entrypoint-outside", dir: "x", files: tool("t", strictInput, "implementation: {runtime: python, entrypoint: ../../t.py}"),
			want: []string{"SKILL.md:7 error tool-entrypoint-outside"}},
		{name: "tool-entrypoint-absolute", dir: "x", files: tool("t", strictInput, "implementation: {runtime: python, entrypoint: /tmp/t.py}"),
			want: []string{"SKILL.md:7 error tool-entrypoint-outside"}},
		{name: "tool-runtime-extension", dir: "x", files: tool("t", strictInput, "implementation: {runtime: node, entrypoint: scripts/t.py}"),
			want: []string{"SKILL.md:7 error tool-runtime-extension"}, msg: "runtime node needs a .js or .mjs entrypoint"},
		{name: "tools-not-a-list", dir: "x", files: withPy(uniSkill("  name: t")),
			want: []string{"SKILL.md:6 error universal-schema", "SKILL.md:7 error field-type"}, msg: "tools: got object, want array"},
		{name: "tools-entry-not-a-mapping", dir: "x", files: withPy(uniSkill("  - t")),
			want: []string{"SKILL.md:7 error field-type", "SKILL.md:7 error universal-schema"}, msg: "must be a mapping"},
	}
	runLintCases(t, cases)
}

func TestLintToolsJSONUniversal(t *testing.T) {
	tool := func(name, desc string) string {
		return `{"name": "` + name + `", "description": "` + desc + `", "input_schema": {"type": "object", "additionalProperties": false, "properties": {}}, "implementation": {"runtime": "python", "entrypoint": "./scripts/t.py"}}`
	}
	fm := uniSkill(uniTool("t", "description: d", strictInput, pyImpl)...)
	noTools := skillMD(body, `spec_version: "2.1"`, "name: x", "description: d", "version: 1.0.0", safetyOK)
	cases := []lintCase{
		{name: "matching", dir: "x", files: map[string]string{"SKILL.md": fm, "scripts/t.py": handlerPy, "tools.json": "[\n  " + tool("t", "d") + "\n]\n"}},
		{name: "stale-description", dir: "x", files: map[string]string{"SKILL.md": fm, "scripts/t.py": handlerPy, "tools.json": "[" + tool("t", "old") + "]"},
			want: []string{"tools.json:1 warning tools-json-stale"}, msg: "the frontmatter wins"},
		{name: "stale-extra-tool", dir: "x", files: map[string]string{"SKILL.md": fm, "scripts/t.py": handlerPy, "tools.json": "[" + tool("t", "d") + "," + tool("u", "d") + "]"},
			want: []string{"tools.json:1 warning tools-json-stale"}},
		{name: "schema", dir: "x", files: map[string]string{"SKILL.md": noTools, "scripts/t.py": handlerPy,
			"tools.json": "[\n  " + tool("t", "d") + ",\n  " + strings.Replace(tool("u", "d"), `"./scripts/t.py"`, `"./scripts/t.py", "retries": 2`, 1) + "\n]"},
			want: []string{"tools.json:3 error tools-json-schema"}, msg: "[1].implementation.retries"},
		{name: "schema-only-for-universal-profile", dir: "x", files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d"), "scripts/t.py": handlerPy,
			"tools.json": "[" + strings.Replace(tool("t", "d"), `"./scripts/t.py"`, `"./scripts/t.py", "retries": 2`, 1) + "]"}},
	}
	runLintCases(t, cases)
}
