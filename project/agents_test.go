package project

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/agent"
)

func TestAgentsTargets(t *testing.T) {
	tests := []struct {
		yaml       string
		want, user []string
	}{
		// Nothing named: the default, unchanged.
		{"skills: {}\n", DefaultTargets(), DefaultTargets()},
		{"agents: [codex]\n", []string{".agents/skills"}, []string{".agents/skills"}},
		{"agents: [claude-code, codex]\n", DefaultTargets(), DefaultTargets()},
		// Agents' folders first, then targets: not already among them.
		{"agents: [windsurf]\ntargets: [.claude/skills, .windsurf/skills]\n",
			[]string{".windsurf/skills", ".claude/skills"}, []string{".codeium/windsurf/skills"}},
		{"agents: [github-copilot]\n", []string{".agents/skills"}, []string{".copilot/skills"}},
	}
	for _, tc := range tests {
		m, err := Parse([]byte(tc.yaml))
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.yaml, err)
		}
		if got := m.InstallTargets(); !slices.Equal(got, tc.want) {
			t.Errorf("%q: InstallTargets() = %q; want %q", tc.yaml, got, tc.want)
		}
		if got := m.UserTargets(); !slices.Equal(got, tc.user) {
			t.Errorf("%q: UserTargets() = %q; want %q", tc.yaml, got, tc.user)
		}
	}
	if got, _ := agent.TargetsFor(DefaultAgents(), false); !slices.Equal(got, DefaultTargets()) {
		t.Errorf("TargetsFor(DefaultAgents()) = %q; want DefaultTargets() %q", got, DefaultTargets())
	}
}

func TestAgentsInvalid(t *testing.T) {
	_, err := Parse([]byte("agents: [claude]\n"))
	if !errors.Is(err, agent.ErrUnknownAgent) || !strings.Contains(err.Error(), "claude-code, codex") {
		t.Errorf("Parse(agents: [claude]) = %v; want ErrUnknownAgent listing the known agents", err)
	}
	if _, err := Parse([]byte("agents: [codex, codex]\n")); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("Parse(agents: [codex, codex]) = %v; want an error about the repeat", err)
	}
}

func TestAddAgents(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string // "" is a new manifest
		ids    []string
		user   bool
		record bool
		agents []string
	}{
		{"new project names its agents", "", []string{"codex", "claude-code"}, false, true, []string{"codex", "claude-code"}},
		{"new project, one agent", "", []string{"codex"}, false, true, []string{"codex"}},
		{"default project already serves codex", "skills:\n  pdf: ^1\n", []string{"codex"}, false, false, nil},
		{"default project keeps its folders", "skills:\n  pdf: ^1\n", []string{"windsurf"}, false, true, []string{"claude-code", "codex", "windsurf"}},
		{"gemini reads .agents/skills", "agents: [codex]\n", []string{"gemini-cli"}, false, false, []string{"codex"}},
		{"claude-code adds a folder", "agents: [codex]\n", []string{"claude-code"}, false, true, []string{"codex", "claude-code"}},
		{"targets: already covers it", "targets: [.windsurf/skills]\nskills:\n  pdf: ^1\n", []string{"windsurf"}, false, false, nil},
		{"user scope: copilot's own folder", "skills:\n  pdf: ^1\n", []string{"github-copilot"}, true, true, []string{"claude-code", "codex", "github-copilot"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(t.TempDir(), "oci:./registry")
			if tc.yaml != "" {
				var err error
				if m, err = Parse([]byte(tc.yaml)); err != nil {
					t.Fatal(err)
				}
			}
			before := m.InstallTargets()
			got, err := m.AddAgents(tc.ids, tc.user)
			if err != nil || got != tc.record {
				t.Fatalf("AddAgents(%q) = %v, %v; want %v", tc.ids, got, err, tc.record)
			}
			if !slices.Equal(m.Agents, tc.agents) {
				t.Errorf("Agents = %q; want %q", m.Agents, tc.agents)
			}
			if !tc.user && tc.record && !isSubset(before, m.InstallTargets()) && tc.yaml != "" {
				t.Errorf("targets went from %q to %q: an existing folder was dropped", before, m.InstallTargets())
			}
			// What was recorded survives a save and a parse.
			out, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(out)
			if err != nil {
				t.Fatalf("Parse(Marshal()): %v\n%s", err, out)
			}
			if !slices.Equal(back.Agents, tc.agents) {
				t.Errorf("after Marshal, Agents = %q; want %q\n%s", back.Agents, tc.agents, out)
			}
		})
	}
	m := New(t.TempDir(), "")
	if _, err := m.AddAgents([]string{"claude"}, false); !errors.Is(err, agent.ErrUnknownAgent) {
		t.Errorf("AddAgents(claude) = %v; want ErrUnknownAgent", err)
	}
}

func TestAddAgentsKeepsComments(t *testing.T) {
	m, err := Parse([]byte(withComments))
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := m.AddAgents([]string{"codex"}, false); !ok || err != nil {
		t.Fatalf("AddAgents(codex) = %v, %v; want true", ok, err)
	}
	out, _ := m.Marshal()
	for _, want := range []string{"# PDFs, for the reports", "agents: [codex]\nskills:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("saved skills.yaml lacks %q:\n%s", want, out)
		}
	}
}

func isSubset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}
