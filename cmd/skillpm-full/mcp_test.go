package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPCommand runs 'skillpm mcp' in-process on pipes and talks to it with
// the go-sdk client: list the tools, call one, call load_skill with an
// unknown name, then close the connection and expect a clean exit.
func TestMCPCommand(t *testing.T) {
	project := agentProject(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errOut strings.Builder
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"skillpm", "mcp", "-C", project, "-q"}, inR, outW, &errOut)
		outW.Close()
		done <- code
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); !strings.Contains(got, "greet") || !strings.Contains(got, "load_skill") || !strings.Contains(got, "use_skill") {
		t.Errorf("tools = %s", got)
	}

	cases := []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"greet", map[string]any{"name": "Ada"}, false, `"name":"Ada"`},
		{"slow", nil, true, `"code":"TIMEOUT"`},
		{"escape", nil, true, `"code":"PERMISSION_DENIED"`},
		{"load_skill", map[string]any{"skill": "greet"}, false, "Skill: greet (Type: project)\nPath: "},
		{"load_skill", map[string]any{"skill": "nope"}, true, "Skill 'nope' not found.\n\nAvailable skills:\n- echo: Echo things.\n- greet: Greets people.\n- other: Other skill.\n"},
		{"use_skill", map[string]any{"skill": "echo", "script": "args.sh", "args": []string{"x y"}}, false, `"stdout":"x y|"`},
	}
	for _, tc := range cases {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Errorf("%s: %v", tc.tool, err)
			continue
		}
		var text string
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if r.IsError != tc.isError || !strings.Contains(text, tc.want) {
			t.Errorf("%s: isError %v, %q; want isError %v containing %q", tc.tool, r.IsError, text, tc.isError, tc.want)
		}
	}

	cs.Close()
	inW.Close()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("skillpm mcp exited %d after the client left; stderr:\n%s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("skillpm mcp did not exit after stdin closed")
	}
}

// TestMCPInspector drives 'skillpm mcp' with the official MCP inspector CLI
// (npx @modelcontextprotocol/inspector --cli). It needs node and the npm
// registry, so it only runs with SKILLPM_TEST_INSPECTOR=1.
func TestMCPInspector(t *testing.T) {
	if os.Getenv("SKILLPM_TEST_INSPECTOR") == "" {
		t.Skip("set SKILLPM_TEST_INSPECTOR=1 to run the MCP inspector (needs npx and the npm registry)")
	}
	npx, err := exec.LookPath("npx")
	if err != nil {
		t.Skip("npx not installed")
	}
	// Build and run npx with the real HOME (module and npm caches);
	// agentProject points HOME at a temporary folder.
	realHome := os.Getenv("HOME")
	bin := filepath.Join(t.TempDir(), "skillpm")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	project := agentProject(t)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--method", "tools/list"}, `"name": "use_skill"`},
		{[]string{"--method", "tools/call", "--tool-name", "greet", "--tool-arg", "name=Ada"}, `"name\":\"Ada\"`},
		{[]string{"--method", "tools/call", "--tool-name", "load_skill", "--tool-arg", "skill=nope"}, `Skill 'nope' not found.`},
	}
	for _, tc := range cases {
		args := append([]string{"-y", "@modelcontextprotocol/inspector", "--cli", bin, "mcp", "-C", project}, tc.args...)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, npx, args...)
		cmd.Env = append(os.Environ(), "HOME="+realHome)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil || !strings.Contains(string(out), tc.want) {
			t.Errorf("inspector %v: %v\n%s\nwant %s", tc.args, err, out, tc.want)
		}
	}
}
