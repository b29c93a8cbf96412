package manager

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/project"
)

// Add reads skills.yaml again under the project lock: an edit made to the
// manifest it was opened with is lost unless it goes through Edit.
func TestAddEdit(t *testing.T) {
	m, _ := newManager(t, "registry: oci:./registry\nskills:\n  slug: ^1.0\n")
	edit := func(p *project.Manifest) error {
		_, err := p.AddAgents([]string{"windsurf"}, false)
		return err
	}
	if _, err := m.Add(context.Background(), AddOptions{Skills: []Want{{Name: "stats"}}, Edit: edit}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(m.Project.Path())
	if !strings.Contains(string(data), "agents: [claude-code, codex, windsurf]") {
		t.Errorf("skills.yaml after Add with Edit:\n%s\nwant the agents recorded", data)
	}
	if _, err := os.Stat(filepath.Join(m.Project.Dir(), ".windsurf/skills/stats/SKILL.md")); err != nil {
		t.Errorf("stats not installed for the agent Edit recorded: %v", err)
	}
}
