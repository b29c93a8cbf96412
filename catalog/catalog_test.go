package catalog

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/install"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// project is a project with a good skill, one whose name differs from its
// folder (skipped), one with a nameless tool (served with a lint issue) and
// one whose SKILL.md cannot be parsed (a problem).
func project(t *testing.T) string {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		".claude/skills/good/SKILL.md":    "---\nname: good\ndescription: Good skill. Use when testing.\n---\nBody.\n",
		".claude/skills/renamed/SKILL.md": "---\nname: other\ndescription: Misnamed. Use when testing.\n---\nBody.\n",
		".claude/skills/notool/SKILL.md":  "---\nname: notool\ndescription: Has a nameless tool. Use when testing.\ntools:\n  - description: no name\n---\nBody.\n",
		".claude/skills/broken/SKILL.md":  "---\nname: [broken\n---\n",
	})
	return dir
}

func TestLoadWarnsInOrder(t *testing.T) {
	dir := project(t)
	l, err := Load(context.Background(), Options{Project: dir, IndexPath: filepath.Join(t.TempDir(), "index.db")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range l.Catalog.Skills {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "good,notool" {
		t.Errorf("served %s, want good,notool", got)
	}
	if len(l.Warnings) != 1 || !strings.HasPrefix(l.Warnings[0], "skipping "+filepath.Join(dir, ".claude/skills/broken")+": ") {
		t.Errorf("warnings %q, want one naming the broken folder", l.Warnings)
	}
	h := Health(l.Catalog)
	if len(h) != 2 || !strings.HasPrefix(h[0], "skipping skill renamed (") || !strings.Contains(h[0], "name-mismatch") ||
		!strings.HasPrefix(h[1], "serving skill notool despite a lint error: ") {
		t.Errorf("health %q: want the skipped skill, then the one served despite an error", h)
	}
	// list reads every folder but says the same of them, and names the
	// unreadable one by folder.
	lh := ListHealth(context.Background(), dir, "", "", nil)
	if len(lh) != 3 || !strings.HasPrefix(lh[0], "skill broken cannot be read and is not served to agents: ") || lh[1] != h[0] {
		t.Errorf("list health %q", lh)
	}
	// Given what discovery found, ListHealth does not need the folders
	// read again and says the same.
	disc := install.Discover(agent.Dirs(dir, ""))
	if got := ListHealth(context.Background(), dir, "", "", disc); strings.Join(got, "\n") != strings.Join(lh, "\n") {
		t.Errorf("with discovered entries: %q, want %q", got, lh)
	}
}

func TestLoadNoProject(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := Load(context.Background(), Options{Project: missing})
	var np *NoProjectError
	if !errors.As(err, &np) || err.Error() != "project folder "+missing+" does not exist" {
		t.Errorf("err = %v, want a NoProjectError naming %s", err, missing)
	}
}

func TestCheckHostAndNarrow(t *testing.T) {
	if err := CheckHost(""); err != nil {
		t.Errorf("empty host: %v", err)
	}
	if err := CheckHost("claude-code"); err != nil {
		t.Errorf("claude-code: %v", err)
	}
	if err := CheckHost("emacs"); !errors.Is(err, ErrUnknownHost) || !strings.HasPrefix(err.Error(), `unknown host "emacs"; want one of `) {
		t.Errorf("emacs: %v", err)
	}
	l, err := Load(context.Background(), Options{Project: project(t)})
	if err != nil {
		t.Fatal(err)
	}
	cat, warns, err := Narrow(l.Catalog, []string{"go*", "no*"}, []string{"notool"}, "")
	if err != nil || len(warns) != 0 || len(cat.Skills) != 1 || cat.Skills[0].Name != "good" {
		t.Errorf("narrow: %v, %q, %v", cat.Skills, warns, err)
	}
	_, _, err = Narrow(l.Catalog, []string{"["}, nil, "")
	var pe *PatternError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `"["`) {
		t.Errorf("bad pattern: %v, want a PatternError quoting it", err)
	}
}
