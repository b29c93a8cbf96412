package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestTargetsFor(t *testing.T) {
	tests := []struct {
		ids  []string
		user bool
		want []string
	}{
		{[]string{"claude-code"}, false, []string{".claude/skills"}},
		{[]string{"codex"}, false, []string{".agents/skills"}},
		// The default install targets, said as agents.
		{[]string{"claude-code", "codex"}, false, []string{".claude/skills", ".agents/skills"}},
		// Every agent that reads the shared folder shares it.
		{[]string{"codex", "gemini-cli", "cursor", "github-copilot", "goose"}, false, []string{".agents/skills"}},
		// OpenCode reads .claude/skills too: nothing more is needed.
		{[]string{"claude-code", "opencode"}, false, []string{".claude/skills"}},
		{[]string{"windsurf", "codex", "windsurf"}, false, []string{".windsurf/skills", ".agents/skills"}},
		{[]string{"claude-code", "github-copilot"}, true, []string{".claude/skills", ".copilot/skills"}},
		{[]string{"codex", "gemini-cli"}, true, []string{".agents/skills"}},
	}
	for _, tc := range tests {
		got, err := TargetsFor(tc.ids, tc.user)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("TargetsFor(%q, user=%v) = %q, %v; want %q", tc.ids, tc.user, got, err, tc.want)
		}
		// Whatever is picked, every agent named reads one of the folders.
		for _, id := range tc.ids {
			h, _ := LookupProgram(id)
			if !slices.ContainsFunc(got, func(d string) bool { return h.Reads(d, tc.user) }) {
				t.Errorf("TargetsFor(%q) = %q: %s reads none of them", tc.ids, got, id)
			}
		}
	}
	if _, err := TargetsFor([]string{"claude"}, false); err == nil {
		t.Error("TargetsFor(claude) succeeded; want an unknown agent error listing the known ones")
	}
}

func TestProgramsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, h := range Programs {
		if seen[h.ID] {
			t.Errorf("agent %s listed twice", h.ID)
		}
		seen[h.ID] = true
		if len(h.ProjectDirs) == 0 || len(h.UserDirs) == 0 || h.Name == "" {
			t.Errorf("agent %s lacks folders or a name: %+v", h.ID, h)
		}
		for _, d := range append(slices.Clone(h.ProjectDirs), h.UserDirs...) {
			if filepath.IsAbs(d) || !filepath.IsLocal(d) {
				t.Errorf("agent %s folder %q is not relative", h.ID, d)
			}
		}
	}
	for _, id := range []string{"claude-code", "codex", "gemini-cli", "cursor", "github-copilot", "goose", "opencode", "windsurf"} {
		if !seen[id] {
			t.Errorf("agent %s missing from Programs", id)
		}
	}
}

func TestDetected(t *testing.T) {
	home := t.TempDir()
	t.Setenv("PATH", t.TempDir()) // no agent programs
	h, _ := LookupProgram("gemini-cli")
	if h.Detected(home) {
		t.Fatal("gemini-cli detected in an empty home with no programs")
	}
	if err := os.Mkdir(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if !h.Detected(home) {
		t.Error("gemini-cli not detected with ~/.gemini present")
	}
}
