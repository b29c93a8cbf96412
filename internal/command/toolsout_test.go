package command

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
)

// toolsJSONDoc is 'tools --json' built as one value, as it was before it
// was streamed: streamToolsJSON must write exactly what writeJSON makes of
// it.
func toolsJSONDoc(cat *agent.Catalog, mode sandbox.Mode) any {
	tools := []toolJSON{}
	for _, t := range cat.Tools {
		j := toolJSON{
			Tool: t.Name, Skill: t.Skill.Name, Description: t.Description,
			InputSchema: agent.InputSchema(t.InputSchema), Runtime: runtimeLabel(t.Tool),
			Entrypoint: t.Entrypoint, TimeoutSeconds: t.TimeoutSeconds,
			Source:  toolSourceJSON{File: t.SourceFile(), Format: string(t.Format), Scope: string(t.Skill.Scope), Root: t.Skill.Root},
			Sandbox: sandbox.Describe(mode, agent.Permissions(t.Skill.Permissions)),
		}
		if len(t.OutputSchema) > 0 {
			j.OutputSchema = t.OutputSchema
		}
		tools = append(tools, j)
	}
	problems := []map[string]string{}
	for _, p := range cat.Problems {
		problems = append(problems, map[string]string{"dir": p.Dir, "error": p.Err.Error()})
	}
	conflicts := cat.Conflicts
	if conflicts == nil {
		conflicts = []agent.Conflict{}
	}
	return map[string]any{"tools": tools, "conflicts": conflicts, "problems": problems}
}

func TestStreamToolsJSONBytes(t *testing.T) {
	perms := &skill.Permissions{}
	perms.Filesystem.Read = []string{"<in>/**"}
	perms.Network.Outbound = []string{"api.example.com"}
	a := &agent.Skill{Name: "a", Dir: "/p/.claude/skills/a", Location: "/p/.claude/skills/a/SKILL.md", Scope: install.ScopeProject, Root: ".claude/skills",
		Tools: []skill.Tool{
			{Name: "dup", Description: "A's <dup> & more", Entrypoint: "run.sh", Runtime: "bash", TimeoutSeconds: 3,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
			{Name: "only_a", Description: "stub", OutputSchema: json.RawMessage(`{"type":"object"}`), Source: skill.FromToolsJSON},
		}}
	b := &agent.Skill{Name: "b", Dir: "/h/.agents/skills/b", Location: "/h/.agents/skills/b/SKILL.md", Scope: install.ScopeUser, Root: "~/.agents/skills",
		Permissions: perms, Tools: []skill.Tool{{Name: "dup", Description: "B wins", Entrypoint: "x.py", Runtime: "python"}}}
	// Strings and schemas encoding/json escapes: HTML, quotes, control
	// characters, U+2028, invalid UTF-8, non-ASCII; a schema with spaces
	// and one that is null.
	odd := &agent.Skill{Name: "odd\u00e9", Dir: "/p/skills/odd\u00e9", Location: "/p/skills/odd\u00e9/SKILL.md", Scope: install.ScopeProject, Root: "skills>",
		Tools: []skill.Tool{
			{Name: "esc", Description: "a \"q\" \\ <b>&amp;</b>\n\t\r\x01\x7f \u2028\u2029 \xff\xfe 日本", Entrypoint: "run <x.sh", TimeoutSeconds: -2,
				InputSchema:  json.RawMessage(" {\n \"type\" : \"object\", \"properties\": {\"a<b>\": {\"description\": \"x & y \\u2028 \u2029\"}} }\n"),
				OutputSchema: json.RawMessage("null")},
			{Name: "same", Description: "same schema", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
		}}
	withProblem := agent.New([]*agent.Skill{a, b})
	withProblem.Problems = []agent.Problem{{Dir: "/p/broken", Err: errors.New("bad \"yaml\"")}}
	cases := map[string]*agent.Catalog{
		"empty":     agent.New(nil),
		"no tools":  agent.New([]*agent.Skill{{Name: "quiet", Dir: "/q", Scope: install.ScopeProject}}),
		"conflicts": agent.New([]*agent.Skill{a, b}),
		"problems":  withProblem,
		"escapes":   agent.New([]*agent.Skill{a, odd}),
		// A CI runner's command in a description and a schema.
		"ci": agent.New([]*agent.Skill{{Name: "ci", Dir: "/p/skills/ci", Location: "/p/skills/ci/SKILL.md", Scope: install.ScopeProject, Root: "skills",
			Tools: []skill.Tool{{Name: "t", Description: "x ##[stop-commands]tok", InputSchema: json.RawMessage(`{"description":"###[add-mask]y"}`)}}}}),
	}
	for name, cat := range cases {
		for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.Default} {
			var want, got bytes.Buffer
			if err := WriteJSON(&want, toolsJSONDoc(cat, mode)); err != nil {
				t.Fatal(err)
			}
			if err := streamToolsJSON(&got, cat, mode); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s, %s: streamed output differs\ngot:\n%s\nwant:\n%s", name, mode, got.String(), want.String())
			}
			if bytes.Contains(got.Bytes(), []byte("##[")) {
				t.Errorf("%s, %s: output holds a CI command:\n%s", name, mode, got.String())
			}
		}
	}
}

// BenchmarkStreamToolsJSON1000 writes 'tools --json' for 1,000 skills of
// one tool each, in process: the output's share of a warm 'tools --json'.
func BenchmarkStreamToolsJSON1000(b *testing.B) {
	var skills []*agent.Skill
	for i := range 1000 {
		name := fmt.Sprintf("skill-%04d", i)
		skills = append(skills, &agent.Skill{Name: name, Dir: "/p/.claude/skills/" + name, Location: "/p/.claude/skills/" + name + "/SKILL.md",
			Scope: install.ScopeProject, Root: ".claude/skills",
			Tools: []skill.Tool{{Name: fmt.Sprintf("tool_%04d", i), Description: "Does thing.", Entrypoint: "scripts/run.sh", Source: skill.FromToolsJSON,
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"The input."}}}`)}}})
	}
	cat := agent.New(skills)
	b.ReportAllocs()
	for b.Loop() {
		if err := streamToolsJSON(io.Discard, cat, sandbox.Default); err != nil {
			b.Fatal(err)
		}
	}
}
