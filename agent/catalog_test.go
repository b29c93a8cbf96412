package agent

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/agent/internal/agenttest"
	"github.com/skillpm/skillpm/install"
)

// fixture is agenttest.Fixture: a home and a project with overlapping
// skills.
func fixture(t testing.TB) (home, project string) { return agenttest.Fixture(t) }

// settle is how long a test waits after writing skills for the index to
// remember them: it does not remember a file changed within its file
// system's timestamp granularity of the read (index.Installed).
const settle = 100 * time.Millisecond

func TestBuildPrecedence(t *testing.T) {
	home, project := fixture(t)
	c, err := Build(context.Background(), Options{Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range c.Skills {
		names = append(names, s.Name)
	}
	if want := []string{"alpha", "mine", "omega", "shared", "zeta"}; !reflect.DeepEqual(names, want) {
		t.Errorf("skills = %v; want %v", names, want)
	}
	cases := []struct {
		name, desc string
		scope      install.Scope
		root       string
		shadows    int
	}{
		{"shared", "project copy", install.ScopeProject, ".claude/skills", 2},
		{"mine", "a personal skill", install.ScopeUser, "~/.claude/skills", 0},
		{"omega", "omega skill", install.ScopeProject, ".agents/skills", 0},
	}
	for _, tc := range cases {
		s, err := c.Skill(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		if s.Description != tc.desc || s.Scope != tc.scope || s.Root != tc.root || len(s.Shadows) != tc.shadows {
			t.Errorf("%s = {%q %s %s shadows %d}; want {%q %s %s shadows %d}", tc.name, s.Description, s.Scope, s.Root, len(s.Shadows), tc.desc, tc.scope, tc.root, tc.shadows)
		}
		if want := filepath.Join(s.Dir, "SKILL.md"); s.Location != want || !filepath.IsAbs(s.Location) {
			t.Errorf("%s location = %q; want %q", tc.name, s.Location, want)
		}
	}
	if len(c.Problems) != 1 || !strings.Contains(c.Problems[0].Dir, "broken") {
		t.Errorf("problems = %v; want the broken skill", c.Problems)
	}
	if _, err := c.Skill("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Skill(nope) err = %v; want ErrNotFound", err)
	}
}

func TestBuildConflicts(t *testing.T) {
	home, project := fixture(t)
	c, err := Build(context.Background(), Options{Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	want := []Conflict{{Tool: "fmt", Winner: "omega", Losers: []string{"alpha", "zeta"}}}
	if !reflect.DeepEqual(c.Conflicts, want) {
		t.Errorf("conflicts = %+v; want %+v", c.Conflicts, want)
	}
	tools := map[string]string{}
	for _, tl := range c.Tools {
		tools[tl.Name] = tl.Skill.Name
	}
	if want := map[string]string{"fmt": "omega", "a_only": "alpha"}; !reflect.DeepEqual(tools, want) {
		t.Errorf("tools = %v; want %v", tools, want)
	}
	if got := c.Conflicts[0].String(); !strings.Contains(got, `"omega" wins`) {
		t.Errorf("conflict text = %q", got)
	}

}

// TestBuildSkillsOnly checks that a build for skills only has every
// skill, skipped skill and problem a whole build has, and no tools.
func TestBuildSkillsOnly(t *testing.T) {
	home, project := fixture(t)
	whole, err := Build(context.Background(), Options{Project: project, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Build(context.Background(), Options{Project: project, Home: home, SkillsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Tools) == 0 || len(whole.Conflicts) == 0 {
		t.Fatal("the fixture declares no tools, or none conflict: the test shows nothing")
	}
	if len(c.Tools) != 0 || len(c.Conflicts) != 0 {
		t.Errorf("skills only: %d tools, %d conflicts; want none", len(c.Tools), len(c.Conflicts))
	}
	if !reflect.DeepEqual(c.Skills, whole.Skills) || !reflect.DeepEqual(c.Skipped, whole.Skipped) ||
		!reflect.DeepEqual(c.Problems, whole.Problems) {
		t.Errorf("skills only differs from a whole build:\n%+v %+v %+v\nwant\n%+v %+v %+v",
			c.Skills, c.Skipped, c.Problems, whole.Skills, whole.Skipped, whole.Problems)
	}
}

func TestBuildUsesIndex(t *testing.T) {
	home, project := fixture(t)
	opts := Options{Project: project, Home: home, IndexPath: filepath.Join(t.TempDir(), "index.db")}
	time.Sleep(settle) // the index remembers only folders that have settled
	cold, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := Build(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Index.Hits != 0 || !cold.Index.Wrote {
		t.Errorf("cold stats = %+v; want no hits, written", cold.Index)
	}
	if warm.Index.Hits != 5 || warm.Index.Misses != 1 || warm.Index.Wrote {
		t.Errorf("warm stats = %+v; want 5 hits, 1 miss (the broken skill is never cached), no write", warm.Index)
	}
	if !reflect.DeepEqual(cold.Tools, warm.Tools) {
		t.Errorf("tools differ between parse and index:\n%+v\n%+v", cold.Tools, warm.Tools)
	}
}

func TestBuildProjectAtHome(t *testing.T) {
	home, _ := fixture(t)
	c, err := Build(context.Background(), Options{Project: home, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.Skill("mine")
	if err != nil {
		t.Fatal(err)
	}
	if s.Scope != install.ScopeProject || len(s.Shadows) != 0 {
		t.Errorf("mine = scope %s, shadows %v; want project scope shadowing nothing", s.Scope, s.Shadows)
	}
}
