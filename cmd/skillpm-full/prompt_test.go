package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/command"
)

func TestPrompt(t *testing.T) {
	project := agentProject(t)
	// t.TempDir may sit behind a symlink; discovery keeps the path given.
	loc := func(rel string) string { return filepath.Join(project, rel, "SKILL.md") }
	cases := []struct {
		name string
		args []string
		want []string // in order
	}{
		{"xml", nil, []string{
			"<available_skills>\n  <skill>\n    <name>echo</name>\n    <description>Echo things.</description>\n    <location>" + loc(".claude/skills/echo") + "</location>\n  </skill>\n",
			"<name>greet</name>\n    <description>Greets people.</description>\n    <location>" + loc(".agents/skills/greet") + "</location>",
			"</available_skills>\n",
		}},
		{"markdown", []string{"--format", "markdown"}, []string{
			"## Available Skills\n", "1. Call load_skill", "### echo\nEcho things.\n", "### greet\nGreets people.\n", "### other\nOther skill.\n",
		}},
	}
	for _, tc := range cases {
		code, out, errOut := runIn(t, nil, append([]string{"prompt", "-C", project}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, errOut)
		}
		rest := out
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: output lacks %q (in order):\n%s", tc.name, w, out)
				break
			}
			rest = rest[i+len(w):]
		}
	}

	code, out, _ := runIn(t, nil, "prompt", "--json", "-C", project)
	var got struct {
		Format string
		Prompt string
		Skills []struct{ Name, Location string }
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 0 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	if got.Format != "xml" || len(got.Skills) != 3 || got.Skills[1].Location != loc(".agents/skills/greet") {
		t.Errorf("--json = %+v", got)
	}
	if code, _, _ := runIn(t, nil, "prompt", "--format", "yaml", "-C", project); code != command.ExitUsage {
		t.Errorf("--format yaml: exit %d; want %d", code, command.ExitUsage)
	}
}
