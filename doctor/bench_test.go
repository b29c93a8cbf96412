package doctor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
)

// BenchmarkCheck1000 checks a project whose two default folders hold 500
// skills each (1,000 SKILL.md files), for every agent that reads them.
func BenchmarkCheck1000(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, project.FileName), []byte("skills: {}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, folder := range project.DefaultTargets() {
		for i := range 500 {
			name := fmt.Sprintf("skill-%d", i)
			p := filepath.Join(dir, folder, name, "SKILL.md")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: Skill number "+name+".\n---\nbody\n"), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	p, err := project.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	m := &manager.Manager{Scope: project.Scope{Project: p}}
	opts := Options{Detect: func(agent.Program) bool { return false }}
	b.ResetTimer()
	for b.Loop() {
		r, err := Check(context.Background(), m, opts)
		if err != nil || len(r.Findings) != 1000 { // every skill is unlocked
			b.Fatalf("Check: %d findings, %v", len(r.Findings), err)
		}
	}
}
