package skill

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"b", "a", ".claude/skills/c", ".git/x", "node_modules/y"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, d, FileName), []byte("---\nname: x\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Find(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(root, ".claude/skills/c"), filepath.Join(root, "a"), filepath.Join(root, "b")}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Find(root) = %q; want %q", got, want)
	}
	if got, err := Find(filepath.Join(root, "a", FileName)); err != nil || len(got) != 1 || got[0] != filepath.Join(root, "a") {
		t.Errorf("Find(SKILL.md) = %q, %v; want its folder", got, err)
	}
	if _, err := Find(filepath.Join(root, "missing")); !errors.Is(err, ErrNotSkill) {
		t.Errorf("Find(missing) error = %v; want ErrNotSkill", err)
	}
	empty := t.TempDir()
	var se *Error
	if _, err := Find(empty); !errors.As(err, &se) || se.Fix == "" {
		t.Errorf("Find(empty) error = %v; want an *Error with a fix", err)
	}
}
