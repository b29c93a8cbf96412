package doctor_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/doctor"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
)

// Check a project for Codex in which a hand-made skill sits in the folder
// Codex reads, beside nothing skills.lock pins.
func ExampleCheck() {
	dir, _ := os.MkdirTemp("", "doctor")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, project.FileName), []byte("agents: [codex]\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, ".agents/skills/notes"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agents/skills/notes/SKILL.md"), []byte("---\nname: notes\ndescription: Notes.\n---\n"), 0o644)

	p, _ := project.Load(dir)
	m := &manager.Manager{Scope: project.Scope{Project: p}}
	r, err := doctor.Check(context.Background(), m, doctor.Options{Detect: func(agent.Program) bool { return false }})
	if err != nil {
		panic(err)
	}
	for _, f := range r.Findings {
		fmt.Println(f.Kind, f.Agents, f.Folder, f.Skill)
	}
	fmt.Println("ok:", r.OK())
	// Output:
	// unlocked [codex] .agents/skills notes
	// ok: false
}
