package agent

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/toolrun"
)

// buildProject writes skills under <tmp>/.agents/skills and builds the
// catalog without an index.
func buildProject(t *testing.T, files map[string]string) *Catalog {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, ".agents", "skills"), files)
	c, err := Build(context.Background(), Options{Project: root})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func names(skills []*Skill) string {
	var out []string
	for _, s := range skills {
		out = append(out, s.Name)
	}
	return strings.Join(out, " ")
}

func TestBuildScreensSkills(t *testing.T) {
	c := buildProject(t, map[string]string{
		"good/SKILL.md":      skillMD("good", "Does good things.", ""),
		"renamed/SKILL.md":   skillMD("other-name", "Named after something else.", ""),
		"silent/SKILL.md":    "---\nname: silent\n---\n\nBody.\n",
		"broken/SKILL.md":    "---\nname: [broken\n---\n",
		"toolish/SKILL.md":   skillMD("toolish", "Has a nameless tool.", ""),
		"toolish/tools.json": `[{"description": "no name"}, {"name": "quiet"}, {"name": "ok", "description": "fine"}]`,
		"badjson/SKILL.md":   skillMD("badjson", "Broken tools.json.", ""),
		"badjson/tools.json": `[{"name": `,
	})
	if got := names(c.Skills); got != "badjson good toolish" {
		t.Errorf("served skills = %q; want badjson good toolish", got)
	}
	skipped := map[string]string{}
	for _, s := range c.Skipped {
		skipped[s.Name] = s.Issues[0].Rule
	}
	if skipped["renamed"] != "name-mismatch" || skipped["silent"] != "description-missing" || len(skipped) != 2 {
		t.Errorf("skipped = %v; want renamed (name-mismatch) and silent (description-missing)", skipped)
	}
	if len(c.Problems) != 1 || filepath.Base(c.Problems[0].Dir) != "broken" {
		t.Errorf("problems = %v; want broken", c.Problems)
	}
	toolish, _ := c.Skill("toolish")
	if len(toolish.Tools) != 1 || toolish.Tools[0].Name != "ok" || len(toolish.Issues) != 2 {
		t.Errorf("toolish tools = %v, issues = %v; want only ok, and two issues", toolish.Tools, toolish.Issues)
	}
	badjson, _ := c.Skill("badjson")
	if len(badjson.Issues) != 1 || badjson.Issues[0].Rule != "tools-json-syntax" {
		t.Errorf("badjson issues = %v; want tools-json-syntax", badjson.Issues)
	}

	// load_skill of a skipped or unreadable skill: the contract's
	// validation error text, not "not found".
	for _, name := range []string{"renamed", "broken", "silent"} {
		text, err := c.LoadSkill(name)
		var inv *InvalidError
		if !errors.As(err, &inv) || !errors.Is(err, ErrInvalid) {
			t.Errorf("LoadSkill(%s) error = %v; want an *InvalidError", name, err)
		}
		if !strings.HasPrefix(text, "Skill '"+name+"' is invalid: [") || !strings.Contains(text, "\n\nFix by:\n- ") || !strings.HasSuffix(text, "Skill will be available after fixing these issues.\n") {
			t.Errorf("LoadSkill(%s) text = %q; want the contract's validation error", name, text)
		}
	}
	if text, _ := c.LoadSkill("renamed"); !strings.Contains(text, `rename the folder to "other-name"`) {
		t.Errorf("LoadSkill(renamed) = %q; want the fix", text)
	}
	if text, err := c.LoadSkill("nothing"); !strings.HasPrefix(text, "Skill 'nothing' not found.") || !errors.Is(err, ErrNotFound) {
		t.Errorf("LoadSkill(nothing) = %q, %v; want not found", text, err)
	}
}

func selectCatalog(t *testing.T) *Catalog {
	return buildProject(t, map[string]string{
		"pdf/SKILL.md":    skillMD("pdf", "PDFs.", "when_to_use:\n  mentions: [pdf, ocr]\n  file_types: [.pdf]\n"),
		"sheets/SKILL.md": skillMD("sheets", "Spreadsheets.", "when_to_use:\n  mentions: [csv]\n  priority: 3\n"),
		"notes/SKILL.md":  skillMD("notes", "Notes.", ""),
		"shell/SKILL.md":  skillMD("shell", "Shell.", toolFM("greet", "g.sh")+"host_overrides:\n  - host: openai-responses\n    config:\n      description: Shell, for OpenAI.\n      tools:\n        - name: greet\n          description: Greet, strictly.\n"),
		"shell/g.sh":      "#!/bin/sh\necho '{}'\n",
	})
}

func TestCatalogSelectAndOnly(t *testing.T) {
	c := selectCatalog(t)
	var got []string
	for _, s := range c.Rank(skillQuery("ocr a.pdf, then csv", 2)) {
		if s.Selected {
			got = append(got, s.Name)
		}
	}
	if strings.Join(got, " ") != "pdf sheets" {
		t.Errorf("selected = %v; want pdf (7) then sheets (2)", got)
	}
	only := c.Only([]string{"shell", "notes"})
	if names(only.Skills) != "notes shell" || len(only.Tools) != 1 || only.Tools[0].Name != "greet" {
		t.Errorf("Only() = %q with tools %v", names(only.Skills), only.Tools)
	}
	if got := names(c.Ordered([]string{"sheets", "nope", "pdf"})); got != "sheets pdf" {
		t.Errorf("Ordered() = %q", got)
	}
}

func TestCatalogFilter(t *testing.T) {
	c := selectCatalog(t)
	tests := []struct {
		include, exclude []string
		want             string
	}{
		{nil, nil, "notes pdf sheets shell"},
		{[]string{"pdf", "s*"}, nil, "pdf sheets shell"},
		{nil, []string{"shel?"}, "notes pdf sheets"},
		{[]string{"s*"}, []string{"shell"}, "sheets"},
		{[]string{"nothing"}, nil, ""},
	}
	for _, tc := range tests {
		f, err := c.Filter(tc.include, tc.exclude)
		if err != nil || names(f.Skills) != tc.want {
			t.Errorf("Filter(%v, %v) = %q, %v; want %q", tc.include, tc.exclude, names(f.Skills), err, tc.want)
		}
	}
	if _, err := c.Filter([]string{"[bad"}, nil); err == nil {
		t.Errorf("Filter([bad) = nil error; want a malformed pattern error")
	}
	if f, _ := c.Filter(nil, []string{"shell"}); len(f.Tools) != 0 {
		t.Errorf("excluding shell kept its tools: %v", f.Tools)
	}
}

func TestCatalogForHost(t *testing.T) {
	c := selectCatalog(t)
	h, errs := c.ForHost("openai-responses")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	sh, _ := h.Skill("shell")
	tl, _ := h.Tool("greet")
	if sh.Description != "Shell, for OpenAI." || tl.Description != "Greet, strictly." {
		t.Errorf("ForHost(openai-responses) = %q / %q; want the override", sh.Description, tl.Description)
	}
	orig, _ := c.Skill("shell")
	if orig.Description != "Shell." {
		t.Errorf("ForHost modified the base catalog: %q", orig.Description)
	}
	other, _ := c.ForHost("claude-code")
	if sh, _ := other.Skill("shell"); sh.Description != "Shell." {
		t.Errorf("ForHost(claude-code) = %q; want the base description", sh.Description)
	}
	if !strings.Contains(h.PromptXML(), "Shell, for OpenAI.") {
		t.Errorf("the prompt of the host catalog lacks the override")
	}
}

func TestPromptWithin(t *testing.T) {
	c := selectCatalog(t)
	order := c.Ordered([]string{"sheets", "pdf", "notes", "shell"})
	full := PromptWithin("xml", order, 0)
	if len(full.Kept) != 4 || full.Text != promptXML(order) {
		t.Fatalf("no limit: kept %v", full.Kept)
	}
	two := len(promptXML(order[:2]))
	b := PromptWithin("xml", order, two)
	if strings.Join(b.Kept, " ") != "sheets pdf" || strings.Join(b.Left, " ") != "notes shell" || len(b.Text) > two {
		t.Errorf("budget %d: kept %v left %v (%d chars)", two, b.Kept, b.Left, len(b.Text))
	}
	// A long skill that does not fit is left out; a shorter later one
	// still gets in.
	order[0].Description = strings.Repeat("long ", 100)
	b = PromptWithin("markdown", order, len(promptMarkdown(order[1:3])))
	if strings.Join(b.Kept, " ") != "pdf notes" || b.Left[0] != "sheets" {
		t.Errorf("kept %v left %v; want pdf notes kept and sheets left out", b.Kept, b.Left)
	}
	if b := PromptWithin("xml", order, 5); len(b.Kept) != 0 || b.Text != xmlOpen+xmlClose {
		t.Errorf("tiny budget: kept %v, text %q", b.Kept, b.Text)
	}
}

func skillQuery(text string, threshold int) skill.Query {
	return skill.Query{Text: text, Threshold: threshold}
}

func TestRunSmokeTestsRefusesMalformed(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"x/SKILL.md": skillMD("x", "X.", "evaluation:\n  smoke_tests:\n    - {tool: ghost, input: {}, expect: {contains: a}}\n"),
		"y/SKILL.md": skillMD("y", "Y.", "evaluation:\n  smoke_tests: 3\n"),
		"z/SKILL.md": skillMD("z", "Z.", "evaluation:\n  smoke_tests:\n    - {tool: t, expect: {}}\n"),
	})
	for _, name := range []string{"x", "y", "z"} {
		s, err := skill.Load(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		res, err := RunSmokeTests(context.Background(), s, toolrun.Options{})
		if !errors.Is(err, ErrSmokeInvalid) || len(res) != 0 {
			t.Errorf("RunSmokeTests(%s) = %v, %v; want ErrSmokeInvalid and nothing run", name, res, err)
		}
	}
}
