package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/command"
)

func TestRun(t *testing.T) {
	project := agentProject(t)
	cases := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // substring
		wantStderr string // substring
	}{
		{"kv input", []string{"greet", "name=Ada"}, 0, `{"got":{"__workDir":`, ""},
		{"JSON input", []string{"greet", "--input", `{"name":"Ada"}`}, 0, `"name":"Ada"`, ""},
		{"schema failure", []string{"greet", "name=3"}, command.ExitToolFailed, `"code":"INVALID_ARGUMENT"`, "input schema"},
		{"later folder wins", []string{"dup"}, 0, `{"from":"other"}`, ""},
		{"unknown tool", []string{"nope"}, command.ExitNotFound, "", "available tools: big, dup, echo, escape, fail, greet, slow"},
		{"escape attempt", []string{"escape"}, command.ExitToolFailed, `"code":"PERMISSION_DENIED"`, "inside the skill folder"},
		{"timeout", []string{"slow"}, command.ExitToolFailed, `"code":"TIMEOUT"`, "timed out after 1s"},
		{"failure", []string{"fail"}, command.ExitToolFailed, `"code":"EXECUTION_FAILED"`, "it broke"},
		{"missing tool name", nil, command.ExitUsage, "", "missing TOOL"},
		{"bad kv", []string{"greet", "oops"}, command.ExitUsage, "", "KEY=VALUE"},
	}
	for _, tc := range cases {
		args := append([]string{"run", "-C", project}, tc.args...)
		code, out, errOut := runIn(t, strings.NewReader(""), args...)
		if code != tc.wantCode || !strings.Contains(out, tc.wantStdout) || !strings.Contains(errOut, tc.wantStderr) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d, stdout ~ %q, stderr ~ %q",
				tc.name, code, out, errOut, tc.wantCode, tc.wantStdout, tc.wantStderr)
		}
	}
}

func TestRunOutputCap(t *testing.T) {
	project := agentProject(t)
	code, out, errOut := runIn(t, nil, "run", "-C", project, "big")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s string
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("stdout is not a JSON string: %v", err)
	}
	if !strings.HasSuffix(s, "[output truncated]") || len(s) > 21*1024 {
		t.Errorf("output is %d bytes ending %q; want it capped at 20 KB and marked", len(s), s[max(0, len(s)-30):])
	}
}

func TestExec(t *testing.T) {
	project := agentProject(t)
	cases := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
	}{
		{"args, no shell", []string{"echo", "args.sh", "a b", "$HOME", ";ls"}, 0, `"stdout": "a b|$HOME|;ls|"`},
		{"dashed args after --", []string{"echo", "args.sh", "--", "--flag=1", "-x"}, 0, `"stdout": "--flag=1|-x|"`},
		{"failure", []string{"echo", "fail.sh"}, command.ExitToolFailed, `"exitCode": 3`},
		{"escape", []string{"echo", "../outside.sh"}, command.ExitToolFailed, `"success": false`},
		{"unknown skill", []string{"nope", "x.sh"}, command.ExitNotFound, `not installed; available skills: echo, greet, other`},
		{"missing script arg", []string{"echo"}, command.ExitUsage, ``},
	}
	for _, tc := range cases {
		code, out, errOut := runIn(t, nil, append([]string{"exec", "-C", project}, tc.args...)...)
		if code != tc.wantCode || !strings.Contains(out, tc.wantStdout) {
			t.Errorf("%s: exit %d, stdout %s, stderr %s; want exit %d, stdout ~ %s", tc.name, code, out, errOut, tc.wantCode, tc.wantStdout)
		}
	}
}

// BenchmarkRunCLI compares 'skillpm run' of a bash tool with running the
// handler directly (bash SCRIPT < input): the difference is skillpm's
// overhead per call, process start-up included.
func BenchmarkRunCLI(b *testing.B) {
	bin := buildBinary(b)
	project, home := b.TempDir(), b.TempDir()
	put(b, project, map[string]string{
		".claude/skills/math/SKILL.md": "---\nname: math\ndescription: Add.\ntools:\n" +
			bashTool("add", "add.sh", `{type: object, properties: {a: {type: integer}, b: {type: integer}}, required: [a, b]}`, "") + "---\nAdd.\n",
		".claude/skills/math/add.sh": "#!/bin/bash\ninput=$(cat)\necho '{\"sum\":5}'\n",
	})
	env := append(os.Environ(), "HOME="+home, "SKILLPM_HOME="+b.TempDir())
	script := filepath.Join(project, ".claude/skills/math/add.sh")
	cases := []struct {
		name string
		cmd  func() *exec.Cmd
	}{
		{"skillpm-run", func() *exec.Cmd { return exec.Command(bin, "run", "-C", project, "add", "a=2", "b=3") }},
		{"direct", func() *exec.Cmd {
			c := exec.Command("bash", script)
			c.Stdin = strings.NewReader(`{"a":2,"b":3,"__workDir":"/tmp"}`)
			return c
		}},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				c := tc.cmd()
				c.Env = env
				if out, err := c.Output(); err != nil || !strings.Contains(string(out), `"sum":5`) {
					b.Fatalf("%v: %v %s", c.Args, err, out)
				}
			}
		})
	}
}
