package agent

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/agent/internal/agenttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Skill files, as package agenttest writes them.
var (
	writeFiles = agenttest.WriteFiles
	skillMD    = agenttest.SkillMD
	toolFM     = agenttest.ToolFM
)

// golden compares got with testdata/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s mismatch\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}
