package agent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/toolrun"
)

// Example builds the catalog of a project's skills, prints the tools, runs
// one and loads a skill's instructions.
func Example() {
	project, _ := os.MkdirTemp("", "agent-example-")
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
	os.WriteFile(filepath.Join(dir, "greet.sh"), []byte("#!/bin/bash\necho '{\"hello\":\"world\"}'\n"), 0o755)

	cat, err := agent.Build(context.Background(), agent.Options{Project: project})
	if err != nil {
		panic(err)
	}
	for _, t := range cat.Tools {
		fmt.Printf("%s (skill %s, %s)\n", t.Name, t.Skill.Name, t.Runtime)
	}
	res, err := cat.CallTool(context.Background(), "greet", []byte(`{"name":"Ada"}`), toolrun.Options{WorkDir: project})
	fmt.Println(string(res.Output), err)
	text, _ := cat.LoadSkill("hello")
	fmt.Println(len(text) > 0)
	// Output:
	// greet (skill hello, bash)
	// {"hello":"world"} <nil>
	// true
}
