package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/command"
)

// runIn runs skillpm in-process with stdin and returns its exit code and
// output.
func runIn(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), append([]string{"skillpm"}, args...), stdin, &out, &errOut)
	return code, out.String(), errOut.String()
}

// put writes files (relative path -> content) under root; .sh files are
// executable.
func put(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// bashTool is frontmatter declaring one bash tool.
func bashTool(name, entry, schema, extra string) string {
	return "  - name: " + name + "\n    description: " + name + " tool\n    input_schema: " + schema + "\n    implementation:\n      runtime: bash\n      entrypoint: " + entry + "\n" + extra
}

// agentProject lays out a project and a home for the agent commands and
// points HOME and SKILLPM_HOME at temporary folders:
//
//	~/.claude/skills/greet       user skill, shadowed by the project's
//	.claude/skills/greet         project, shadowed by .agents/skills
//	.agents/skills/greet         wins "greet"; tool greet
//	.claude/skills/echo          tools echo, slow (timeout 1s), big, escape, fail; tool dup
//	.agents/skills/other         tool dup (wins: later folder)
func agentProject(t *testing.T) string {
	t.Helper()
	home, project := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("SKILLPM_HOME", t.TempDir())
	t.Setenv("NO_COLOR", "1")
	obj := `{type: object, additionalProperties: false, properties: {name: {type: string}}, required: [name]}`
	open := `{type: object}`
	md := func(name, desc, tools string) string {
		s := "---\nname: " + name + "\ndescription: " + desc + "\n"
		if tools != "" {
			s += "tools:\n" + tools
		}
		return s + "---\n\n# " + name + "\n\nInstructions for " + name + ".\n"
	}
	put(t, home, map[string]string{
		".claude/skills/greet/SKILL.md": md("greet", "user greet", ""),
	})
	put(t, project, map[string]string{
		".claude/skills/greet/SKILL.md": md("greet", "claude greet", ""),
		".agents/skills/greet/SKILL.md": md("greet", "Greets people.", bashTool("greet", "greet.sh", obj, "")),
		".agents/skills/greet/greet.sh": "#!/bin/bash\nin=$(cat)\necho \"{\\\"got\\\":$in}\"\n",
		".claude/skills/echo/SKILL.md": md("echo", "Echo things.",
			bashTool("echo", "echo.sh", open, "")+
				bashTool("slow", "slow.sh", open, "      timeout_seconds: 1\n")+
				bashTool("big", "big.sh", open, "")+
				bashTool("escape", "../outside.sh", open, "")+
				bashTool("fail", "fail.sh", open, "")+
				bashTool("dup", "echo.sh", open, "")),
		".claude/skills/echo/echo.sh":   "#!/bin/bash\ncat\n",
		".claude/skills/echo/slow.sh":   "#!/bin/bash\nsleep 5\necho '{}'\n",
		".claude/skills/echo/big.sh":    "#!/bin/bash\nhead -c 30000 /dev/zero | tr '\\0' x\n",
		".claude/skills/echo/fail.sh":   "#!/bin/bash\necho 'it broke' >&2\nexit 3\n",
		".claude/skills/echo/args.sh":   "#!/bin/bash\nprintf '%s|' \"$@\"\n",
		".claude/skills/outside.sh":     "#!/bin/bash\necho escaped\n",
		".agents/skills/other/SKILL.md": md("other", "Other skill.", bashTool("dup", "dup.sh", open, "")),
		".agents/skills/other/dup.sh":   "#!/bin/bash\necho '{\"from\":\"other\"}'\n",
	})
	return project
}

func TestToolsList(t *testing.T) {
	project := agentProject(t)
	code, out, errOut := runIn(t, nil, "tools", "-C", project)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if got, want := strings.Fields(lines[0]), []string{"TOOL", "SKILL", "RUNTIME", "SOURCE", "DESCRIPTION"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("header = %v; want %v", got, want)
	}
	want := map[string]string{ // tool -> "skill runtime source"
		"greet": "greet bash .agents/skills/greet/SKILL.md",
		"dup":   "other bash .agents/skills/other/SKILL.md",
		"echo":  "echo bash .claude/skills/echo/SKILL.md",
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if w, ok := want[f[0]]; ok {
			if got := strings.Join(f[1:4], " "); got != w {
				t.Errorf("%s: %q; want %q", f[0], got, w)
			}
			delete(want, f[0])
		}
	}
	if len(want) != 0 {
		t.Errorf("missing tools %v in:\n%s", want, out)
	}
	if !strings.Contains(errOut, `warning: tool "dup" is declared by skills [echo] and "other"; "other" wins`) {
		t.Errorf("stderr lacks the conflict warning:\n%s", errOut)
	}
}

func TestToolsJSONAndFormats(t *testing.T) {
	project := agentProject(t)
	code, out, errOut := runIn(t, nil, "tools", "--json", "-C", project)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Tools []struct {
			Tool, Skill, Runtime string
			InputSchema          map[string]any
			Source               struct{ File, Scope, Root string }
		}
		Conflicts []struct{ Tool, Winner string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got.Tools) != 7 || len(got.Conflicts) != 1 || got.Conflicts[0].Winner != "other" {
		t.Errorf("tools = %d, conflicts = %+v; want 7 tools and dup won by other", len(got.Tools), got.Conflicts)
	}
	for _, tl := range got.Tools {
		if tl.Tool == "greet" && (tl.Source.Root != ".agents/skills" || tl.Source.Scope != "project" || tl.InputSchema["type"] != "object") {
			t.Errorf("greet = %+v", tl)
		}
	}

	cases := []struct {
		format, key string
	}{
		{"mcp", "inputSchema"},
		{"openai", "function"},
		{"anthropic", "input_schema"},
	}
	for _, tc := range cases {
		code, out, errOut := runIn(t, nil, "tools", "--format", tc.format, "--builtins", "-C", project)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.format, code, errOut)
		}
		var defs []map[string]any
		if err := json.Unmarshal([]byte(out), &defs); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if len(defs) != 9 {
			t.Errorf("%s: %d definitions; want 9 (7 tools + 2 built-ins)", tc.format, len(defs))
		}
		for _, d := range defs {
			if _, ok := d[tc.key]; !ok {
				t.Errorf("%s: definition without %q: %v", tc.format, tc.key, d)
			}
		}
	}
	if code, _, _ := runIn(t, nil, "tools", "--format", "gemini", "-C", project); code != command.ExitUsage {
		t.Errorf("--format gemini: exit %d; want %d", code, command.ExitUsage)
	}
}

func TestToolsWarmIndex(t *testing.T) {
	project := agentProject(t)
	time.Sleep(100 * time.Millisecond) // the index remembers only folders that have settled
	runIn(t, nil, "tools", "-C", project)
	code, _, errOut := runIn(t, nil, "tools", "--debug", "-C", project)
	if code != 0 || !strings.Contains(errOut, "3 hits, 0 misses") {
		t.Errorf("warm run: exit %d, stderr:\n%s\nwant 3 index hits", code, errOut)
	}
	code, _, errOut = runIn(t, nil, "tools", "--debug", "--no-index", "-C", project)
	if code != 0 || !strings.Contains(errOut, "0 hits, 3 misses") {
		t.Errorf("--no-index: exit %d, stderr:\n%s\nwant no index hits", code, errOut)
	}
}

// buildBinary builds skillpm into a temporary folder, for process-level
// benchmarks.
func buildBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "skillpm")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkToolsCLI1000 runs the skillpm binary ('tools --json') over 1,000
// installed skills: warm reads the index, no-index parses every SKILL.md.
// This is the process-level discovery figure (start-up included).
func BenchmarkToolsCLI1000(b *testing.B) {
	bin := buildBinary(b)
	project, home := b.TempDir(), b.TempDir()
	files := map[string]string{}
	for i := range 1000 {
		name := fmt.Sprintf("skill-%04d", i)
		files[".claude/skills/"+name+"/SKILL.md"] = "---\nname: " + name + "\ndescription: Skill " + name + ".\ntools:\n" +
			bashTool(fmt.Sprintf("tool_%04d", i), "run.sh", `{type: object, properties: {text: {type: string}}, required: [text]}`, "") +
			"---\n\n" + strings.Repeat("Instructions.\n", 100)
	}
	put(b, project, files)
	time.Sleep(100 * time.Millisecond) // the index remembers only folders that have settled
	env := append(os.Environ(), "HOME="+home, "SKILLPM_HOME="+b.TempDir())
	for _, mode := range []string{"warm-index", "no-index"} {
		args := []string{"tools", "--json", "-C", project}
		if mode == "no-index" {
			args = append(args, "--no-index")
		}
		run := func() {
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			if out, err := cmd.Output(); err != nil || !bytes.Contains(out, []byte("tool_0999")) {
				b.Fatalf("skillpm %v: %v", args, err)
			}
		}
		run() // prime the index
		b.Run(mode, func(b *testing.B) {
			for b.Loop() {
				run()
			}
		})
	}
}

// What 'select' prints of a skill's triggers is escaped: a mention or
// file type cannot color or reorder the terminal.
func TestSelectEscapesSkillText(t *testing.T) {
	t.Setenv("SKILLPM_HOME", t.TempDir())
	dir := t.TempDir()
	sk := filepath.Join(dir, ".agents", "skills", "sel")
	if err := os.MkdirAll(sk, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: sel\ndescription: d.\nwhen_to_use:\n  mentions: [\"pdf\\x1b[31mred\"]\n  file_types: [\".pdf\\u202e\"]\n---\nbody\n"
	if err := os.WriteFile(filepath.Join(sk, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	e := &command.Env{Stdout: &out, Stderr: &errb}
	code := runEnv(context.Background(), e, []string{"skillpm", "select", "--project", dir, "--no-index", "--threshold", "1", "pdf\x1b[31mred x.pdf\u202e"})
	if code != 0 || !strings.Contains(out.String(), `mention pdf\x1b[31mred +2`) || !strings.Contains(out.String(), `file_type .pdf\u202e +3`) {
		t.Errorf("exit %d, stdout %q; want the triggers escaped\nstderr: %s", code, out.String(), errb.String())
	}
}
