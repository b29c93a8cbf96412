package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/toolrun"
)

// session connects a go-sdk client to New(c) over in-memory pipes.
func session(t testing.TB, c *agent.Catalog, opts ServerOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := New(c, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestMCPSession(t *testing.T) {
	c := built(t)
	var warnings []string
	cs := session(t, c, ServerOptions{Version: "test", Run: toolrun.Options{WorkDir: t.TempDir()}, Warn: func(m string) { warnings = append(warnings, m) }})
	ctx := context.Background()

	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "### omega") {
		t.Errorf("instructions = %q; want the skills prompt", got)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		if tl.Name == "fmt" {
			schema, _ := json.Marshal(tl.InputSchema)
			if !strings.Contains(string(schema), `"required":["text"]`) {
				t.Errorf("fmt inputSchema = %s", schema)
			}
		}
	}
	sort.Strings(names)
	if want := "a_only fmt load_skill select_skills use_skill"; strings.Join(names, " ") != want {
		t.Errorf("tools = %v; want %s", names, want)
	}

	cases := []struct {
		tool     string
		args     any
		wantErr  bool
		wantText string
	}{
		{"fmt", map[string]any{"text": "hi"}, false, `"by":"omega"`},
		{"fmt", map[string]any{"text": 1}, true, `"code":"INVALID_ARGUMENT"`},
		{"a_only", nil, true, `"code":"NOT_FOUND"`},
		{"load_skill", map[string]any{"skill": "zeta"}, false, "Skill: zeta (Type: project)"},
		{"load_skill", map[string]any{"skill": "nope"}, true, "Skill 'nope' not found.\n\nAvailable skills:\n- alpha: alpha skill\n"},
		{"use_skill", map[string]any{"skill": "zeta", "script": "fmt.sh"}, false, `"success":true`},
		{"use_skill", map[string]any{"skill": "zeta", "script": "/bin/sh"}, true, `"success":false`},
	}
	for _, tc := range cases {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Errorf("%s: protocol error %v; want a tool result", tc.tool, err)
			continue
		}
		if r.IsError != tc.wantErr || !strings.Contains(text(r), tc.wantText) {
			t.Errorf("%s(%v) = isError %v, %q; want isError %v containing %q", tc.tool, tc.args, r.IsError, text(r), tc.wantErr, tc.wantText)
		}
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %v", warnings)
	}
}

func TestMCPLeavesOutUnservableTools(t *testing.T) {
	c := agent.New([]*agent.Skill{{Name: "odd", Dir: t.TempDir()}})
	c.Tools = []agent.Tool{
		{Skill: c.Skills[0]},
		{Skill: c.Skills[0]},
	}
	c.Tools[0].Name, c.Tools[0].Entrypoint = "load_skill", "x.sh"
	c.Tools[1].Name, c.Tools[1].InputSchema = "arr", json.RawMessage(`{"type":"array"}`)
	var warnings []string
	cs := session(t, c, ServerOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != 3 || len(warnings) != 2 {
		t.Errorf("tools = %d, warnings = %v; want the 3 built-ins and 2 warnings", len(lt.Tools), warnings)
	}
}

// A skill cannot stop the server or take the other tools away: a tool
// the SDK refuses (it panics on an x-mcp-header annotation of an object
// property) or MCP clients refuse (a name outside MCP's rule; an output
// schema that is not an object makes the TypeScript SDK fail the whole
// tools/list) is left out, or served without its output schema.
func TestMCPSurvivesHostileTools(t *testing.T) {
	c := agent.New([]*agent.Skill{{Name: "evil", Dir: t.TempDir()}})
	decl := []struct{ name, in, out string }{
		{"header", `{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"X-O"}}}`, ""},
		{"bad-header", `{"type":"object","properties":{"s":{"type":"string","x-mcp-header":"not a token"}}}`, ""},
		{"line\nbreak", `{"type":"object"}`, ""},
		{"arr-out", `{"type":"object"}`, `{"type":"array"}`},
		{"fine", `{"type":"object"}`, `{"type":"object"}`},
	}
	for _, d := range decl {
		tl := agent.Tool{Skill: c.Skills[0]}
		tl.Name, tl.Description, tl.Entrypoint = d.name, "d", "x.sh"
		tl.InputSchema = json.RawMessage(d.in)
		if d.out != "" {
			tl.OutputSchema = json.RawMessage(d.out)
		}
		c.Tools = append(c.Tools, tl)
	}
	var warnings []string
	cs := session(t, c, ServerOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		if tl.Name == "arr-out" && tl.OutputSchema != nil {
			t.Errorf("arr-out outputSchema = %v; want none", tl.OutputSchema)
		}
		if tl.Name == "fine" && tl.OutputSchema == nil {
			t.Errorf("fine lost its output schema")
		}
	}
	sort.Strings(names)
	if want := "arr-out fine load_skill select_skills use_skill"; strings.Join(names, " ") != want || len(warnings) != 4 {
		t.Errorf("tools = %v, warnings = %q; want %s and 4 warnings", names, warnings, want)
	}
}

// A handler that panics (here: a catalog corrupted after the server was
// built) fails its own request; the server goes on answering.
func TestMCPSurvivesPanickingHandler(t *testing.T) {
	c := agent.New([]*agent.Skill{{Name: "s", Dir: t.TempDir()}})
	tl := agent.Tool{Skill: c.Skills[0]}
	tl.Name, tl.Description, tl.Entrypoint = "boom", "d", "x.sh"
	c.Tools = []agent.Tool{tl}
	var warnings []string
	cs := session(t, c, ServerOptions{Warn: func(m string) { warnings = append(warnings, m) }})
	c.Tools[0].Skill = nil
	ctx := context.Background()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom"}); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("call = %v; want an internal error", err)
	}
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "load_skill", Arguments: map[string]any{"skill": "s"}})
	if err != nil || r == nil {
		t.Fatalf("after the panic: %v", err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "tools/call") {
		t.Errorf("warnings = %q; want the panic reported", warnings)
	}
}

// A client cannot start more runs at once than MaxCalls: the rest wait
// for a slot, so a burst of calls does not become a burst of processes.
func TestMCPBoundsConcurrentRuns(t *testing.T) {
	project := t.TempDir()
	writeFiles(t, filepath.Join(project, ".agents", "skills"), map[string]string{
		"slow/SKILL.md": skillMD("slow", "Slow.", toolFM("slow", "slow.sh")),
		"slow/slow.sh":  "#!/bin/bash\ntouch \"$PWD/run-$$\"\nls \"$PWD\"/run-* | wc -l >> \"$PWD/counts\"\nsleep 0.3\nrm \"$PWD/run-$$\"\necho '{}'\n",
	})
	c := build(t, project, "")
	work := t.TempDir()
	cs := session(t, c, ServerOptions{Run: toolrun.Options{WorkDir: work}, MaxCalls: 2})
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"text": "x"}}); err != nil || r.IsError {
				t.Errorf("call: %v %v", err, r)
			}
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(filepath.Join(work, "counts"))
	if err != nil {
		t.Fatal(err)
	}
	most := 0
	for _, f := range strings.Fields(string(data)) {
		n, _ := strconv.Atoi(f)
		most = max(most, n)
	}
	if lines := len(strings.Fields(string(data))); lines != 6 || most > 2 {
		t.Errorf("%d runs, at most %d at once; want 6 runs, at most 2", lines, most)
	}
}
