package skill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestToolsJSONFromFrontmatter(t *testing.T) {
	fm := uniSkill(uniTool("t", "description: d <b> & more", strictInput, pyImpl)...)
	dir := writeSkill(t, "x", map[string]string{"SKILL.md": fm, "scripts/t.py": handlerPy,
		"tools.json": `[{"name": "t", "description": "old"}]`})
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !hasRule(s.LoadProblems(), "tools-json-stale") {
		t.Fatal("fixture: the old tools.json is not stale")
	}
	got, err := s.ToolsJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), "[\n  {\n    \"description\": \"d <b> & more\",") || !strings.HasSuffix(string(got), "}\n]\n") {
		t.Errorf("tools.json =\n%s\nwant a sorted, indented array with unescaped text", got)
	}
	if err := os.WriteFile(filepath.Join(dir, ToolsFileName), got, 0o644); err != nil {
		t.Fatal(err)
	}
	s2, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if hasRule(s2.LoadProblems(), "tools-json-stale") {
		t.Error("the regenerated tools.json is still stale")
	}
	again, err := s2.ToolsJSON()
	if err != nil || string(again) != string(got) {
		t.Errorf("regenerating again gave different bytes (%v):\n%s\nwant:\n%s", err, again, got)
	}
}

func TestToolsJSONWithoutFrontmatterTools(t *testing.T) {
	dir := writeSkill(t, "y", map[string]string{"SKILL.md": skillMD(body, "name: y", "description: d")})
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ToolsJSON(); !errors.Is(err, ErrNoFrontmatterTools) {
		t.Errorf("err = %v; want ErrNoFrontmatterTools", err)
	}
}

func hasRule(ds []Diagnostic, rule string) bool {
	for _, d := range ds {
		if d.Rule == rule {
			return true
		}
	}
	return false
}
