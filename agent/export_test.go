package agent

import (
	"encoding/json"
	"testing"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/skill"
)

// fixed is a catalog with fixed paths, for golden outputs.
func fixed() *Catalog {
	pdf := &Skill{
		Name: "pdf-processing", Description: "Extracts text & tables from <PDF> files.",
		Location: "/home/u/.claude/skills/pdf-processing/SKILL.md", Dir: "/home/u/.claude/skills/pdf-processing",
		Scope: install.ScopeUser,
		Tools: []skill.Tool{{
			Name: "extract-text", Description: "Extract text from a PDF file.",
			InputSchema:  json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"path":{"type":"string"}},"required":["path"]}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`),
			Runtime:      "python", Entrypoint: "scripts/pdf.py",
		}},
	}
	words := &Skill{
		Name: "count-words", Description: "Count words.\nUse when asked how long a text is.",
		Location: "/p/.agents/skills/count-words/SKILL.md", Dir: "/p/.agents/skills/count-words",
		Scope: install.ScopeProject,
		Tools: []skill.Tool{
			{Name: "count_words", Description: "Count the words of a text.", Runtime: "node", Entrypoint: "scripts/count_words.js",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"lang":{"type":"string"}},"required":["text"]}`)},
			{Name: "stub", Description: "No handler."},
		},
	}
	return New([]*Skill{pdf, words})
}

func TestPrompts(t *testing.T) {
	c := fixed()
	golden(t, "prompt.xml", c.PromptXML())
	golden(t, "prompt.md", c.PromptMarkdown())
	golden(t, "prompt-empty.xml", New(nil).PromptXML())
}

func TestToolDefinitions(t *testing.T) {
	c := fixed()
	for _, h := range []Host{HostMCP, HostOpenAI, HostOpenAIResponses, HostAnthropic} {
		b, err := json.MarshalIndent(c.ToolDefinitions(h, h == HostOpenAI), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "tools-"+string(h)+".json", string(b)+"\n")
	}
	if _, err := ParseHost("gemini"); err == nil {
		t.Errorf("ParseHost(gemini) = nil error")
	}
}

func TestStrictCompatible(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		want   bool
	}{
		{"empty schema", ``, true},
		{"closed, all required", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"}},"required":["a"]}`, true},
		{"nullable optional", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":["string","null"]}},"required":["a"]}`, true},
		{"open object", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, false},
		{"optional property", `{"type":"object","additionalProperties":false,"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"]}`, false},
		{"nested open object", `{"type":"object","additionalProperties":false,"properties":{"o":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},"required":["o"]}`, false},
		{"array of closed objects", `{"type":"object","additionalProperties":false,"properties":{"l":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"x":{"type":"number"}},"required":["x"]}}},"required":["l"]}`, true},
		{"array of open objects", `{"type":"object","additionalProperties":false,"properties":{"l":{"type":"array","items":{"type":"object"}}},"required":["l"]}`, false},
		{"open $defs", `{"type":"object","additionalProperties":false,"properties":{},"$defs":{"d":{"type":"object"}}}`, false},
		{"anyOf closed", `{"type":"object","additionalProperties":false,"properties":{"v":{"anyOf":[{"type":"string"},{"type":"object","additionalProperties":false,"properties":{},"required":[]}]}},"required":["v"]}`, true},
		{"oneOf", `{"type":"object","additionalProperties":false,"properties":{"v":{"oneOf":[{"type":"string"}]}},"required":["v"]}`, false},
		{"additionalProperties schema", `{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{"not an object", `{"type":"string"}`, false},
		{"not JSON", `{`, false},
	}
	for _, tc := range cases {
		if got := StrictCompatible(json.RawMessage(tc.schema)); got != tc.want {
			t.Errorf("%s: StrictCompatible = %v; want %v", tc.name, got, tc.want)
		}
	}
}
