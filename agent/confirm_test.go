package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/toolrun"
)

// gatedCatalog has a skill with a gated tool (wipe: destructive_writes), a
// read-only tool (peek), a network tool (fetch, gated by the skill's
// external_network) and a script gated by the skill's destructive_writes.
func gatedCatalog(t *testing.T) (*Catalog, string) {
	t.Helper()
	project := t.TempDir()
	writeFiles(t, project, map[string]string{
		".claude/skills/cleaner/SKILL.md": `---
spec_version: "2.1"
name: cleaner
description: Deletes generated output.
version: 1.0.0
permissions:
  filesystem: {write: ["output/**"]}
  network: {outbound: []}
  processes: {allow_subprocess: false}
safety:
  require_confirmation_for: [destructive_writes]
tools:
  - name: wipe
    description: Delete generated output files.
    confirmation: {level: destructive_writes, prompt: "This will delete files under output/**."}
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/wipe.sh}
  - name: tidy
    description: Tidy output; asks because the skill writes.
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/wipe.sh}
  - name: count
    description: Count files; never asks.
    confirmation: {level: never}
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/wipe.sh}
---
Cleaner.
`,
		".claude/skills/cleaner/scripts/wipe.sh": "#!/bin/bash\ntouch \"$PWD/ran-$$\"\necho '{\"wiped\":true}'\n",
		".claude/skills/reader/SKILL.md": `---
spec_version: "2.1"
name: reader
description: Reads only.
version: 1.0.0
permissions:
  filesystem: {read: ["**/*.txt"]}
  network: {outbound: []}
tools:
  - name: peek
    description: Read.
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/peek.sh}
---
Reader.
`,
		".claude/skills/reader/scripts/peek.sh": "#!/bin/bash\necho '{}'\n",
		".claude/skills/web/SKILL.md": `---
spec_version: "2.1"
name: web
description: Reaches a host.
version: 1.0.0
permissions:
  network: {outbound: ["api.example.com"]}
safety:
  require_confirmation_for: [external_network]
tools:
  - name: fetch
    description: Fetch.
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/peek.sh}
---
Web.
`,
		".claude/skills/web/scripts/peek.sh": "#!/bin/bash\necho '{}'\n",
	})
	c, err := Build(context.Background(), Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	return c, project
}

func TestConfirmationGates(t *testing.T) {
	c, _ := gatedCatalog(t)
	cases := map[string]string{"wipe": "destructive_writes", "tidy": "destructive_writes", "count": "", "peek": "", "fetch": "external_network"}
	for name, want := range cases {
		tl, err := c.Tool(name)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if g := tl.Confirmation(); g != nil {
			got = g.Level
			if g.Prompt == "" {
				t.Errorf("%s: empty prompt", name)
			}
		}
		if got != want {
			t.Errorf("%s: gate %q; want %q", name, got, want)
		}
	}
	if g, _ := c.Tool("wipe"); g.Confirmation().Prompt != "This will delete files under output/**." {
		t.Errorf("wipe prompt = %q; want the tool's own", g.Confirmation().Prompt)
	}
	sk, _ := c.Skill("cleaner")
	if g := sk.ScriptConfirmation("scripts/wipe.sh"); g == nil || g.Level != "destructive_writes" {
		t.Errorf("cleaner scripts: gate %+v; want destructive_writes", g)
	}
	rd, _ := c.Skill("reader")
	if g := rd.ScriptConfirmation("scripts/peek.sh"); g != nil {
		t.Errorf("reader scripts: gate %+v; want none", g)
	}
}

func TestAnnotations(t *testing.T) {
	c, _ := gatedCatalog(t)
	cs := session(t, c, ServerOptions{Run: toolrun.Options{WorkDir: t.TempDir()}})
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.ToolAnnotations{}
	for _, tl := range lt.Tools {
		got[tl.Name] = tl.Annotations
	}
	b := func(p *bool) string {
		if p == nil {
			return "unset"
		}
		if *p {
			return "true"
		}
		return "false"
	}
	check := func(name string, readOnly, idem bool, destructive, openWorld string) {
		a := got[name]
		if a == nil {
			t.Errorf("%s: no annotations", name)
			return
		}
		if a.ReadOnlyHint != readOnly || a.IdempotentHint != idem || b(a.DestructiveHint) != destructive || b(a.OpenWorldHint) != openWorld {
			t.Errorf("%s: readOnly=%v idempotent=%v destructive=%s openWorld=%s; want %v %v %s %s", name,
				a.ReadOnlyHint, a.IdempotentHint, b(a.DestructiveHint), b(a.OpenWorldHint), readOnly, idem, destructive, openWorld)
		}
	}
	check("peek", true, true, "false", "false")
	check("wipe", false, false, "true", "false")
	check("count", false, false, "unset", "false")
	check("fetch", false, false, "unset", "true")
}

// elicitingSession connects a go-sdk client that answers elicitation with
// answer (nil: the client does not support elicitation).
func elicitingSession(t *testing.T, c *Catalog, opts ServerOptions, answer *mcp.ElicitResult, asked *[]string, version string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := NewServer(c, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	var copts *mcp.ClientOptions
	if answer != nil {
		copts = &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			*asked = append(*asked, req.Params.Message)
			return answer, nil
		}}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestMCPConfirmation calls gated tools from go-sdk clients with and
// without an elicitation handler, on the latest protocol (multi
// round-trip input requests) and on 2025-06-18 (elicitation/create sent
// while the call waits).
func TestMCPConfirmation(t *testing.T) {
	for _, version := range []string{"", "2025-06-18"} {
		t.Run("protocol "+version, func(t *testing.T) { testMCPConfirmation(t, version) })
	}
}

func testMCPConfirmation(t *testing.T, version string) {
	for _, tc := range []struct {
		name    string
		answer  *mcp.ElicitResult
		yes     bool
		wantRun bool
		want    string
	}{
		{"no elicitation", nil, false, false, "cannot ask the user (it does not support elicitation); run skillpm mcp --yes"},
		{"accepted", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, false, true, `"wiped":true`},
		{"accepted unchecked", &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}, false, false, "not confirmed"},
		{"declined", &mcp.ElicitResult{Action: "decline"}, false, false, "elicitation: decline"},
		{"server --yes", nil, true, true, `"wiped":true`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := gatedCatalog(t)
			work := t.TempDir()
			run := toolrun.Options{WorkDir: work}
			if tc.yes {
				run.Confirm = func(context.Context, toolrun.ConfirmRequest) (string, error) { return "--yes", nil }
			}
			var asked []string
			cs := elicitingSession(t, c, ServerOptions{Run: run, ConfirmHow: "run skillpm mcp --yes"}, tc.answer, &asked, version)
			for _, call := range []*mcp.CallToolParams{
				{Name: "wipe", Arguments: map[string]any{}},
				{Name: "use_skill", Arguments: map[string]any{"skill": "cleaner", "script": "scripts/wipe.sh"}},
			} {
				res, err := cs.CallTool(context.Background(), call)
				if err != nil {
					t.Fatalf("%s: protocol error %v; want a tool result", call.Name, err)
				}
				out := text(res)
				if res.IsError == tc.wantRun {
					t.Errorf("%s: isError = %v; output %s", call.Name, res.IsError, out)
				}
				if call.Name == "wipe" && !strings.Contains(out, tc.want) {
					t.Errorf("%s: output %s; want %q", call.Name, out, tc.want)
				}
				if !tc.wantRun && !strings.Contains(out, "CONFIRMATION_REQUIRED") && !strings.Contains(out, "NotConfirmed") {
					t.Errorf("%s: output %s; want the structured confirmation error", call.Name, out)
				}
			}
			ran, _ := filepath.Glob(filepath.Join(work, "ran-*"))
			if want := map[bool]int{true: 2, false: 0}[tc.wantRun]; len(ran) != want {
				t.Errorf("%d runs happened; want %d", len(ran), want)
			}
			if tc.answer != nil && (len(asked) != 2 || !strings.Contains(asked[0], "This will delete files under output/**.")) {
				t.Errorf("asked %q; want the tool's prompt, once per call", asked)
			}
		})
	}
}
