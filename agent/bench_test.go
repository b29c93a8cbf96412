package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// manySkills writes n skills, each with one tool and a body of about 2 KB,
// into a project's .claude/skills and returns the project.
func manySkills(tb testing.TB, n int) string {
	tb.Helper()
	project := tb.TempDir()
	body := strings.Repeat("Instructions line that an agent reads when it loads the skill.\n", 32)
	files := map[string]string{}
	for i := range n {
		name := fmt.Sprintf("skill-%04d", i)
		fm := "version: 1.2.3\n" + toolFM(fmt.Sprintf("tool_%04d", i), "run.sh")
		files[".claude/skills/"+name+"/SKILL.md"] = skillMD(name, "Skill number "+name+". Use it when the benchmark asks for it.", fm) + body
		files[".claude/skills/"+name+"/run.sh"] = "#!/bin/bash\ncat\n"
	}
	writeFiles(tb, project, files)
	return project
}

// BenchmarkBuild1000 measures discovery plus catalog building for 1,000
// installed skills: cold (every SKILL.md parsed) and warm (metadata from
// the index, no SKILL.md read). The Skill tool contract asks for < 500ms.
func BenchmarkBuild1000(b *testing.B) {
	project := manySkills(b, 1000)
	db := filepath.Join(b.TempDir(), "index.db")
	cases := []struct {
		name string
		opts Options
	}{
		{"cold-parse", Options{Project: project}},
		{"warm-index", Options{Project: project, IndexPath: db}},
	}
	// Prime the index, once the folders have settled (it remembers
	// no others).
	time.Sleep(settle)
	if _, err := Build(context.Background(), cases[1].opts); err != nil {
		b.Fatal(err)
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				c, err := Build(context.Background(), tc.opts)
				if err != nil || len(c.Skills) != 1000 || len(c.Tools) != 1000 {
					b.Fatalf("build: %v, %d skills", err, len(c.Skills))
				}
			}
		})
	}
}

// BenchmarkLoadSkill measures load_skill on one skill of a 1,000-skill
// catalog. The contract asks for < 100ms.
func BenchmarkLoadSkill(b *testing.B) {
	c, err := Build(context.Background(), Options{Project: manySkills(b, 1000)})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.LoadSkill("skill-0500"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrompt1000 measures building both prompt sections and the
// OpenAI definitions for 1,000 skills ("tool description generation": the
// contract asks for < 50ms).
func BenchmarkPrompt1000(b *testing.B) {
	c, err := Build(context.Background(), Options{Project: manySkills(b, 1000)})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		_ = c.PromptXML()
		_ = c.PromptMarkdown()
		_, _ = c.ToolDefinitions(HostOpenAI, true)
	}
}

// TestMetadataBudget checks the contract's memory number for 1,000 skills
// with a warm index: every skill comes from the index and the catalog
// holds < 10 MB. Time is BenchmarkBuild's to measure, not a test's: an
// assertion on elapsed time fails on a loaded machine and proves nothing
// on an idle one.
func TestMetadataBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1,000 skills")
	}
	project := manySkills(t, 1000)
	opts := Options{Project: project, IndexPath: filepath.Join(t.TempDir(), "index.db")}
	time.Sleep(settle) // the index remembers only folders that have settled
	if _, err := Build(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	c, err := Build(context.Background(), opts)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// What the catalog holds: the live heap with it, less the live heap
	// once it is dropped.
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	hits := c.Index.Hits
	c = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	held := int64(with.HeapAlloc) - int64(without.HeapAlloc)
	t.Logf("1,000 skills: warm build %s, %d index hits, catalog holds %.2f MB", elapsed, hits, float64(held)/(1<<20))
	if hits != 1000 {
		t.Errorf("index hits = %d; want 1000", hits)
	}
	if held > 10<<20 {
		t.Errorf("catalog of 1,000 skills holds %d bytes; want < 10 MB", held)
	}
}
