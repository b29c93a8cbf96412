package manager

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/source"
)

// TestSourcedHostile: a folder whose SKILL.md names another skill than
// skills.yaml's entry, and a version tag whose tree lacks the folder,
// each fail naming the skill, the source and the fix.
func TestSourcedHostile(t *testing.T) {
	work, _, _ := repoT(t)
	m := sourcedProject(t, "skills:\n  beta:\n    git: file://"+work+"\n    path: skills/alpha\n    version: ^1.0.0\n")
	ctx := context.Background()
	_, _, err := m.Resolve(ctx, ResolveOptions{})
	if !errors.Is(err, source.ErrNotSkill) || !strings.Contains(err.Error(), `holds the skill "alpha", not "beta"`) {
		t.Errorf("Resolve(a folder of another skill) = %v; want ErrNotSkill naming both", err)
	}

	// alpha/v2.0.0 tags a tree without skills/alpha.
	gitT(t, work, "rm", "-q", "-r", "skills/alpha")
	writeT(t, filepath.Join(work, "README"), "moved away\n")
	gitT(t, work, "add", "-A")
	gitT(t, work, "commit", "-q", "-m", "gone")
	gitT(t, work, "tag", "alpha/v2.0.0")
	m = sourcedProject(t, "skills:\n  alpha:\n    git: file://"+work+"\n    path: skills/alpha\n    version: ^2.0.0\n")
	_, _, err = m.Resolve(ctx, ResolveOptions{})
	if !errors.Is(err, source.ErrNotFound) || !strings.Contains(err.Error(), `has no folder "skills/alpha"`) || !strings.Contains(err.Error(), "fix path in skills.yaml") {
		t.Errorf("Resolve(a tag without the folder) = %v; want ErrNotFound naming the folder and the fix", err)
	}
}
