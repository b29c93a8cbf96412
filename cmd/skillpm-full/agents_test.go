package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/agent"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite README.md's generated sections")

// agentsTable renders agent.Programs as the README prints it.
func agentsTable() string {
	var b strings.Builder
	b.WriteString("| agent (`--agent`, `agents:`) | name | project folders | user folders |\n| --- | --- | --- | --- |\n")
	for _, p := range agent.Programs {
		user := make([]string, len(p.UserDirs))
		for i, d := range p.UserDirs {
			user[i] = "`~/" + d + "`"
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s |\n", p.ID, p.Name, strings.Join(p.ProjectDirs, "`, `"), strings.Join(user, ", "))
	}
	return b.String()
}

// TestReadmeAgentsTable keeps the README's agents table what the code
// says: go test ./cmd/skillpm-full -run ReadmeAgents -update-readme rewrites it.
func TestReadmeAgentsTable(t *testing.T) {
	const begin, end = "<!-- agents table: generated from agent.Programs -->\n", "<!-- end agents table -->\n"
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no %q ... %q section", begin, end)
	}
	want := s[:i+len(begin)] + agentsTable() + s[j:]
	if want == s {
		return
	}
	if *updateReadme {
		if err := os.WriteFile("../../README.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's agents table differs from agent.Programs; run: go test ./cmd/skillpm-full -run ReadmeAgents -update-readme")
}
