package agent

import (
	"context"
	"testing"

	"github.com/skillpm/skillpm/agent/internal/agenttest"
)

// gatedCatalog builds the catalog of agenttest.GatedProject.
func gatedCatalog(t *testing.T) (*Catalog, string) {
	t.Helper()
	project := agenttest.GatedProject(t)
	c, err := Build(context.Background(), Options{Project: project})
	if err != nil {
		t.Fatal(err)
	}
	return c, project
}

func TestConfirmationGates(t *testing.T) {
	c, _ := gatedCatalog(t)
	cases := map[string]string{"wipe": "destructive_writes", "tidy": "destructive_writes", "count": "", "peek": "", "fetch": "external_network"}
	for name, want := range cases {
		tl, err := c.Tool(name)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if g := tl.Confirmation(); g != nil {
			got = g.Level
			if g.Prompt == "" {
				t.Errorf("%s: empty prompt", name)
			}
		}
		if got != want {
			t.Errorf("%s: gate %q; want %q", name, got, want)
		}
	}
	if g, _ := c.Tool("wipe"); g.Confirmation().Prompt != "This will delete files under output/**." {
		t.Errorf("wipe prompt = %q; want the tool's own", g.Confirmation().Prompt)
	}
	sk, _ := c.Skill("cleaner")
	if g := sk.ScriptConfirmation("scripts/wipe.sh"); g == nil || g.Level != "destructive_writes" {
		t.Errorf("cleaner scripts: gate %+v; want destructive_writes", g)
	}
	rd, _ := c.Skill("reader")
	if g := rd.ScriptConfirmation("scripts/peek.sh"); g != nil {
		t.Errorf("reader scripts: gate %+v; want none", g)
	}
}
