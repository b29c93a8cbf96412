package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/toolrun"
)

func built(t *testing.T) *Catalog {
	t.Helper()
	home, project := fixture(t)
	c, err := Build(context.Background(), Options{Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadSkill(t *testing.T) {
	c := built(t)
	mine, _ := c.Skill("mine")
	shared, _ := c.Skill("shared")
	cases := []struct {
		name    string
		want    string
		wantErr error
	}{
		{"mine", fmt.Sprintf("Skill: mine (Type: personal)\nPath: %s\n\n# mine\n\nUse it well.\n", mine.Dir), nil},
		{"shared", fmt.Sprintf("Skill: shared (Type: project)\nPath: %s\n\n# shared\n\nUse it well.\n", shared.Dir), nil},
		{"nope", "Skill 'nope' not found.\n\nAvailable skills:\n" +
			"- alpha: alpha skill\n- mine: a personal skill\n- omega: omega skill\n- shared: project copy\n- zeta: zeta skill\n\n" +
			"To create this skill:\n1. Create directory .agents/skills/nope/ (or install it: skillpm add nope)\n2. Add SKILL.md file with proper YAML frontmatter\n", ErrNotFound},
	}
	for _, tc := range cases {
		got, err := c.LoadSkill(tc.name)
		if got != tc.want {
			t.Errorf("LoadSkill(%q) =\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
		if !errors.Is(err, tc.wantErr) {
			t.Errorf("LoadSkill(%q) err = %v; want %v", tc.name, err, tc.wantErr)
		}
	}
}

func TestCallTool(t *testing.T) {
	c := built(t)
	opts := toolrun.Options{WorkDir: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin", "OMEGA_TOKEN=s3cret", "OTHER=leak"}}
	// Declared but not granted: the handler runs without it.
	res, err := c.CallTool(context.Background(), "fmt", json.RawMessage(`{"text":"hi"}`), opts)
	if err != nil {
		t.Fatalf("CallTool: %v (output %s)", err, res.Output)
	}
	if strings.Contains(string(res.Output), "s3cret") {
		t.Errorf("output %s holds a secret no grant allows", res.Output)
	}
	opts.Grants = toolrun.Grants{"omega": {"OMEGA_TOKEN"}}
	res, err = c.CallTool(context.Background(), "fmt", json.RawMessage(`{"text":"hi"}`), opts)
	if err != nil {
		t.Fatalf("CallTool: %v (output %s)", err, res.Output)
	}
	var out struct {
		By, Token string
		In        map[string]any
	}
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatalf("output %s: %v", res.Output, err)
	}
	if out.By != "omega" || out.Token != "[REDACTED:OMEGA_TOKEN]" || out.In["text"] != "hi" || out.In["__workDir"] != opts.WorkDir {
		t.Errorf("output = %+v; want omega's handler with its secret and __workDir", out)
	}

	res, err = c.CallTool(context.Background(), "fmt", json.RawMessage(`{"text":3}`), opts)
	if toolrun.KindOf(err) != toolrun.InvalidInput || !strings.Contains(string(res.Output), `"INVALID_ARGUMENT"`) {
		t.Errorf("bad input: err = %v, output %s; want InvalidInput envelope", err, res.Output)
	}

	if _, err := c.CallTool(context.Background(), "nope", nil, opts); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown tool err = %v; want ErrNotFound", err)
	}

	stub := fixed()
	res, err = stub.CallTool(context.Background(), "stub", nil, opts)
	if err != nil || !strings.Contains(string(res.Output), "load_skill") {
		t.Errorf("stub tool = %s, %v; want a pointer to load_skill", res.Output, err)
	}
}

func TestRunToolMapping(t *testing.T) {
	c := built(t)
	tl, err := c.Tool("fmt")
	if err != nil {
		t.Fatal(err)
	}
	tl.TimeoutSeconds = 7
	got := tl.RunTool()
	if got.Skill != "omega" || got.Dir != tl.Skill.Dir || got.Entrypoint != "fmt.sh" || got.Runtime != "bash" ||
		got.Timeout != 7*time.Second || len(got.Secrets) != 1 || got.Secrets[0] != "OMEGA_TOKEN" {
		t.Errorf("RunTool() = %+v", got)
	}
	// A timeout_seconds too large for a Duration saturates instead of
	// wrapping around (toolrun then caps it by the run's limit).
	tl.TimeoutSeconds = math.MaxInt
	if got := tl.RunTool().Timeout; got != math.MaxInt64 {
		t.Errorf("RunTool().Timeout for %d seconds = %v; want the largest Duration", tl.TimeoutSeconds, got)
	}
}

func TestUseSkill(t *testing.T) {
	c := built(t)
	opts := toolrun.Options{WorkDir: t.TempDir()}
	cases := []struct {
		skill, script string
		args          []string
		wantKind      toolrun.Kind
		wantStdout    string
	}{
		{"zeta", "fmt.sh", []string{"a b"}, "", `{"by":"zeta"}` + "\n"},
		{"nope", "fmt.sh", nil, toolrun.SkillNotFound, ""},
		{"zeta", "missing.sh", nil, toolrun.ScriptNotFound, ""},
		{"zeta", "../alpha/fmt.sh", nil, toolrun.ScriptNotAllowed, ""},
	}
	for _, tc := range cases {
		res, err := c.UseSkill(context.Background(), tc.skill, tc.script, tc.args, opts)
		if got := toolrun.KindOf(err); got != tc.wantKind {
			t.Errorf("UseSkill(%s, %s) kind = %q (%v); want %q", tc.skill, tc.script, got, err, tc.wantKind)
		}
		if res == nil || res.Success != (tc.wantKind == "") || res.Stdout != tc.wantStdout {
			t.Errorf("UseSkill(%s, %s) = %+v", tc.skill, tc.script, res)
		}
		if tc.wantKind == toolrun.SkillNotFound && !strings.Contains(res.Error, "available skills: alpha, mine") {
			t.Errorf("SkillNotFound error %q does not list the skills", res.Error)
		}
	}
}
