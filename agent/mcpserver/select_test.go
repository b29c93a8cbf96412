package mcpserver

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestMCPSelectSkills(t *testing.T) {
	cs := session(t, selectCatalog(t), ServerOptions{})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: SelectSkillsTool, Arguments: map[string]any{"text": "read this", "files": []string{"scan.pdf"}}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Selected []struct {
			Name        string
			Score       int
			Description string
		}
	}
	if err := json.Unmarshal([]byte(text(res)), &out); err != nil || res.IsError {
		t.Fatalf("select_skills = %s, %v", text(res), err)
	}
	if len(out.Selected) != 1 || out.Selected[0].Name != "pdf" || out.Selected[0].Score != 3 || out.Selected[0].Description != "PDFs." {
		t.Errorf("select_skills = %+v; want pdf with score 3", out.Selected)
	}
}
