package mcpserver

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/agent/internal/agenttest"
)

// Skill files, as package agenttest writes them.
var (
	writeFiles = agenttest.WriteFiles
	skillMD    = agenttest.SkillMD
	toolFM     = agenttest.ToolFM
)

// build builds the catalog of project (and home, when not empty) without
// an index.
func build(t testing.TB, project, home string) *agent.Catalog {
	t.Helper()
	c, err := agent.Build(context.Background(), agent.Options{Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// built is the catalog of agenttest.Fixture.
func built(t *testing.T) *agent.Catalog {
	home, project := agenttest.Fixture(t)
	return build(t, project, home)
}

// gatedCatalog is the catalog of agenttest.GatedProject.
func gatedCatalog(t *testing.T) (*agent.Catalog, string) {
	project := agenttest.GatedProject(t)
	return build(t, project, ""), project
}

// selectCatalog has a skill selected by PDF files and one that is not.
func selectCatalog(t *testing.T) *agent.Catalog {
	root := t.TempDir()
	writeFiles(t, filepath.Join(root, ".agents", "skills"), map[string]string{
		"pdf/SKILL.md":   skillMD("pdf", "PDFs.", "when_to_use:\n  mentions: [pdf, ocr]\n  file_types: [.pdf]\n"),
		"notes/SKILL.md": skillMD("notes", "Notes.", ""),
	})
	return build(t, root, "")
}
