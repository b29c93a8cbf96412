//go:build linux

package mcpserver

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/toolrun"
)

// BenchmarkMCPToolsCall measures MCP tools/call latency from a go-sdk
// client to NewServer over in-memory transports: a bash tool with the
// sandbox off, and on (default mode: the default profile, and a skill
// declaring permissions).
func BenchmarkMCPToolsCall(b *testing.B) {
	if err := sandbox.Available(); err != nil {
		b.Fatal(err)
	}
	project := b.TempDir()
	writeFiles(b, project, map[string]string{
		".claude/skills/plain/SKILL.md":    skillMD("plain", "plain skill", toolFM("plain_echo", "run.sh")),
		".claude/skills/plain/run.sh":      "#!/bin/bash\ncat >/dev/null\necho '{\"ok\":true}'\n",
		".claude/skills/declared/SKILL.md": skillMD("declared", "declared skill", "spec_version: \"2.1\"\nversion: 1.0.0\npermissions:\n  filesystem: {write: [\"output/**\"]}\n  network: {outbound: []}\n"+toolFM("declared_echo", "run.sh")),
		".claude/skills/declared/run.sh":   "#!/bin/bash\ncat >/dev/null\necho '{\"ok\":true}'\n",
	})
	c, err := agent.Build(context.Background(), agent.Options{Project: project})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name, tool string
		mode       sandbox.Mode
	}{
		{"off", "plain_echo", sandbox.Off},
		{"default-profile", "plain_echo", sandbox.Default},
		{"declared", "declared_echo", sandbox.Default},
	} {
		b.Run(tc.name, func(b *testing.B) {
			run := toolrun.Options{WorkDir: b.TempDir(), Env: os.Environ(), Sandbox: &toolrun.Sandbox{Mode: tc.mode}}
			cs := session(b, c, ServerOptions{Run: run})
			params := &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{"text": "hi"}}
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatalf("%v %s", err, text(res))
				}
			}
		})
	}
}
