//go:build unix

package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestDiscoverEntryKinds checks which entries of a discovery folder are
// skills: a folder, or a link to one, holding a SKILL.md that is a
// regular file (or a link to one); not a file, a link to a file, a
// dangling link, a folder without SKILL.md or whose SKILL.md is a folder,
// FIFO or dangling link, nor a name starting with a dot. Enough folders
// are made for discovery to stat them on several goroutines.
func TestDiscoverEntryKinds(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "skills")
	other := filepath.Join(root, "elsewhere")
	for _, d := range []string{dir, other, filepath.Join(other, "linked"), filepath.Join(other, "linked-md")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		t.Helper()
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mkdir := func(p string) {
		t.Helper()
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(to, at string) {
		t.Helper()
		if err := os.Symlink(to, at); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for i := range 300 {
		name := fmt.Sprintf("s%03d", i)
		mkdir(filepath.Join(dir, name))
		write(filepath.Join(dir, name, "SKILL.md"), "x")
		want = append(want, name)
	}
	write(filepath.Join(other, "linked", "SKILL.md"), "x")
	write(filepath.Join(other, "plain.md"), "x")
	link(filepath.Join(other, "linked"), filepath.Join(dir, "link-to-folder"))
	want = append(want, "link-to-folder")
	mkdir(filepath.Join(dir, "md-link"))
	link(filepath.Join(other, "plain.md"), filepath.Join(dir, "md-link", "SKILL.md"))
	want = append(want, "md-link")
	odd := "odd name\twith\nbytes\xff"
	mkdir(filepath.Join(dir, odd))
	write(filepath.Join(dir, odd, "SKILL.md"), "x")
	want = append(want, odd)

	write(filepath.Join(dir, "file"), "x")
	link(filepath.Join(other, "plain.md"), filepath.Join(dir, "link-to-file"))
	link(filepath.Join(root, "missing"), filepath.Join(dir, "dangling"))
	mkdir(filepath.Join(dir, "empty"))
	mkdir(filepath.Join(dir, "md-folder"))
	mkdir(filepath.Join(dir, "md-folder", "SKILL.md"))
	mkdir(filepath.Join(dir, "md-fifo"))
	if err := syscall.Mkfifo(filepath.Join(dir, "md-fifo", "SKILL.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	mkdir(filepath.Join(dir, "md-dangling"))
	link("missing", filepath.Join(dir, "md-dangling", "SKILL.md"))
	mkdir(filepath.Join(dir, ".hidden"))
	write(filepath.Join(dir, ".hidden", "SKILL.md"), "x")

	slices.Sort(want)
	var got []string
	for _, e := range Discover([]Dir{{Path: dir, Rel: "skills", Scope: ScopeProject, Bounds: Bounds{Root: root}}}) {
		got = append(got, e.Name)
		if e.Path != filepath.Join(dir, e.Name) {
			t.Errorf("%q: path %s", e.Name, e.Path)
		}
		if e.SkillMD == nil || !e.SkillMD.Mode().IsRegular() {
			t.Errorf("%q: SKILL.md stat %v", e.Name, e.SkillMD)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("discovered %q;\nwant %q", got, want)
	}
}
