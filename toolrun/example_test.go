package toolrun_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/toolrun"
)

func ExampleRunTool() {
	dir, err := os.MkdirTemp("", "greeter")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	// A bash handler: JSON arguments on stdin, JSON result on stdout.
	handler := `#!/bin/bash
name=$(grep -o '"name":"[^"]*"' | cut -d'"' -f4)
printf '{"greeting":"hello, %s"}\n' "$name"
`
	if err := os.WriteFile(filepath.Join(dir, "greet.sh"), []byte(handler), 0o644); err != nil {
		log.Fatal(err)
	}
	tool := toolrun.Tool{
		Skill:       "greeter",
		Dir:         dir,
		Name:        "greet",
		Entrypoint:  "greet.sh",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
	}

	res, err := toolrun.RunTool(context.Background(), tool, json.RawMessage(`{"name":"world"}`), toolrun.Options{})
	fmt.Println(string(res.Output), err)

	// On failure the result holds the error envelope for the agent.
	res, err = toolrun.RunTool(context.Background(), tool, json.RawMessage(`{}`), toolrun.Options{})
	fmt.Println(string(res.Output))
	fmt.Println(toolrun.KindOf(err))
	// Output:
	// {"greeting":"hello, world"} <nil>
	// {"status":"error","error":{"code":"INVALID_ARGUMENT","message":"skill \"greeter\": tool \"greet\": invalid input: missing property 'name'","retriable":false}}
	// InvalidInput
}
