package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// writeLocalSkills writes n hand-authored skills, each with a tools.json,
// into proj/.claude/skills, as the start-up benchmark's fixture does.
func writeLocalSkills(tb testing.TB, proj string, n int) {
	tb.Helper()
	for i := range n {
		name := fmt.Sprintf("local-%04d", i)
		dir := filepath.Join(proj, ".claude", "skills", name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: Local skill %d. Use when the user asks about topic %d.\n---\n# %s\n\nCall the tool.\n", name, i, i%97, name)
		tools := fmt.Sprintf(`[{"name": "tool_%04d", "description": "Does thing %d.", "script": "scripts/run.sh", "parameters": {"text": {"type": "string", "description": "The input."}}}]`, i, i)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tools.json"), []byte(tools), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// BenchmarkList1000 and BenchmarkToolsJSON1000 run 'skillpm list' and
// 'skillpm tools --json' in-process over 1,000 skills, warm.
func BenchmarkList1000(b *testing.B)      { benchLight(b, "list") }
func BenchmarkToolsJSON1000(b *testing.B) { benchLight(b, "tools", "--json") }

func benchLight(b *testing.B, args ...string) {
	root := b.TempDir()
	proj := filepath.Join(root, "project")
	writeLocalSkills(b, proj, 1000)
	b.Setenv("HOME", root)
	b.Setenv("SKILLPM_HOME", filepath.Join(root, "home"))
	argv := append(append([]string{"skillpm"}, args...), "-C", proj)
	run := func() {
		e := &Env{Stdin: os.Stdin, Stdout: io.Discard, Stderr: io.Discard}
		if code := Run(context.Background(), e, NewApp(e, Light(e)), argv); code != 0 {
			b.Fatalf("exit code %d", code)
		}
	}
	run() // warm the index
	for b.Loop() {
		run()
	}
}
