package mcpserver

import (
	"context"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
)

// BenchmarkResourcesSyncUnchanged is the cost of one --watch-interval
// check when nothing changed: Sync over 500 skills of 5 files each,
// already listed (the catalog rebuild, through the index, is measured by
// the catalog benchmarks).
func BenchmarkResourcesSyncUnchanged(b *testing.B) {
	project := b.TempDir()
	files := map[string]string{}
	for i := range 500 {
		name := fmt.Sprintf("s%03d", i)
		files[".agents/skills/"+name+"/SKILL.md"] = skillMD(name, "skill "+name, "")
		for j := range 4 {
			files[fmt.Sprintf(".agents/skills/%s/references/r%d.md", name, j)] = "# ref\n"
		}
	}
	writeFiles(b, project, files)
	c, err := agent.Build(context.Background(), agent.Options{Project: project})
	if err != nil {
		b.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	r := NewResources(ResourceOptions{})
	r.Sync(s, c.Skills)
	b.ResetTimer()
	for b.Loop() {
		if r.Sync(s, c.Skills) {
			b.Fatal("Sync of an unchanged set reported a change")
		}
	}
}
