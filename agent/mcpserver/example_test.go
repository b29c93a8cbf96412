package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/agent/mcpserver"
)

// Serve a project's skills to an MCP client (over in-memory transports
// here; 'skillpm mcp' uses stdio and Serve) and list its tools.
func ExampleNew() {
	ctx := context.Background()
	project, _ := os.MkdirTemp("", "mcpserver-example-")
	defer os.RemoveAll(project)
	dir := filepath.Join(project, ".agents", "skills", "hello")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(`---
name: hello
description: Say hello.
tools:
  - name: greet
    description: Greet someone.
    input_schema: {type: object, properties: {name: {type: string}}, required: [name]}
    implementation: {runtime: bash, entrypoint: greet.sh}
---
Call greet with a name.
`), 0o644)

	cat, err := agent.Build(ctx, agent.Options{Project: project})
	if err != nil {
		panic(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(cat, mcpserver.ServerOptions{Version: "example"}).Connect(ctx, st, nil)
	if err != nil {
		panic(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		panic(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	for _, t := range tools.Tools {
		fmt.Println(t.Name)
	}
	// Unordered output:
	// greet
	// load_skill
	// use_skill
	// select_skills
}
