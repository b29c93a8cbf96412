package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/skill"
)

// SelectSkillsTool is the MCP tool that applies the Universal spec's
// deterministic selection (§10) to the served skills.
const SelectSkillsTool = "select_skills"

// builtinName reports whether name is one of the server's own tools, which
// declared tools cannot take over.
func builtinName(name string) bool {
	return name == agent.LoadSkillTool || name == agent.UseSkillTool || name == SelectSkillsTool
}

// selectInput is the select_skills tool's input.
type selectInput struct {
	Text      string   `json:"text"`
	Files     []string `json:"files"`
	Intents   []string `json:"intents"`
	Threshold int      `json:"threshold"`
}

var selectSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"text":{"type":"string","description":"The user's request"},` +
	`"files":{"type":"array","items":{"type":"string"},"description":"Paths of the files the request concerns"},` +
	`"intents":{"type":"array","items":{"type":"string"},"description":"Intent labels derived by the host"},` +
	`"threshold":{"type":"integer","description":"Lowest score selected (default 3)"}},` +
	`"required":["text"],"additionalProperties":false}`)

// addSelectTool serves select_skills: the selected skills, best first,
// with scores and what matched, as JSON.
func addSelectTool(c *agent.Catalog, s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        SelectSkillsTool,
		Description: "Select the skills relevant to a request (deterministic: file types +3, mentions +2, intents +1, threshold 3; naming a skill or tool selects it). Call load_skill on the ones returned.",
		InputSchema: selectSchema,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in selectInput
		if err := json.Unmarshal(arguments(req), &in); err != nil {
			return textResult(fmt.Sprintf("invalid arguments for %s: %v", SelectSkillsTool, err), true), nil
		}
		type selected struct {
			skill.Scored
			Description string `json:"description"`
		}
		out := struct {
			Selected []selected `json:"selected"`
		}{Selected: []selected{}}
		for _, sc := range skill.Select(c.Candidates(), skill.Query{Text: in.Text, Files: in.Files, Intents: in.Intents, Threshold: in.Threshold}) {
			sk, _ := c.Skill(sc.Name)
			out.Selected = append(out.Selected, selected{Scored: sc, Description: sk.Description})
		}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		r := textResult(string(b), false)
		r.StructuredContent = json.RawMessage(b)
		return r, nil
	})
}
