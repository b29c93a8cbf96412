//go:build unix

package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A SKILL.md that is a FIFO (or a link to a device) is a skill agents
// skip or hang on: doctor reports it, without opening it, instead of
// passing over it in silence. A loop of links is named as such.
func TestHostileTree(t *testing.T) {
	m := setup(t)
	dir := m.Project.Dir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude/skills/pipe"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".claude/skills/pipe/SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".claude/skills/zero"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, ".claude/skills/zero/SKILL.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-b", filepath.Join(dir, ".agents/skills/loop-a")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop-a", filepath.Join(dir, ".agents/skills/loop-b")); err != nil {
		t.Fatal(err)
	}
	r := check(t, m)
	for _, name := range []string{"pipe", "zero"} {
		if f := find(t, r, KindInvalid, name); !strings.Contains(f.Message, "not a regular file") {
			t.Errorf("invalid-skill finding %+v; want it to say SKILL.md is not a regular file", f)
		}
	}
	for _, name := range []string{"loop-a", "loop-b"} {
		if f := find(t, r, KindBrokenLink, name); !strings.Contains(f.Message, "cannot be followed") {
			t.Errorf("broken-link finding %+v; want it to say the link cannot be followed", f)
		}
	}
}
