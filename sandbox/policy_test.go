package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTighter(t *testing.T) {
	for _, c := range []struct{ user, project, want Mode }{
		{Default, Off, Default}, {Off, Strict, Strict}, {Strict, Off, Strict}, {Off, Off, Off}, {Default, Strict, Strict},
	} {
		if got := Tighter(c.user, c.project); got != c.want {
			t.Errorf("Tighter(%s, %s) = %s; want %s", c.user, c.project, got, c.want)
		}
	}
	if _, err := ParseMode("lax"); err == nil {
		t.Error("ParseMode(lax) = nil error")
	}
	if m, err := ParseMode(""); err != nil || m != Default {
		t.Errorf("ParseMode(\"\") = %s, %v; want default", m, err)
	}
}

func TestGlobRoot(t *testing.T) {
	wd := t.TempDir()
	if err := os.Symlink(t.TempDir(), filepath.Join(wd, "link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		glob  string
		write bool
		want  string // relative to wd; "!" for an error
	}{
		{"**/*.pdf", false, ""},
		{"output/**", true, "output"},
		{"data/*.csv", false, "data"},
		{"notes.txt", false, "notes.txt"},
		{"a/b/c?.txt", true, "a/b"},
		{"../up/**", false, "!"},
		{"/etc/**", false, "!"},
		{"!secret", false, "!"},
		{"link/**", true, "!"}, // resolves outside the work folder
	} {
		got, err := globRoot(wd, c.glob, c.write)
		if c.want == "!" {
			if err == nil {
				t.Errorf("globRoot(%q) = %q; want an error", c.glob, got)
			}
			continue
		}
		if want := filepath.Join(wd, c.want); err != nil || got != want {
			t.Errorf("globRoot(%q) = %q, %v; want %q", c.glob, got, err, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(wd, "output")); err != nil || !fi.IsDir() {
		t.Errorf("the write glob's folder was not created: %v", err)
	}
}

func TestBuildDefaultProfile(t *testing.T) {
	wd, skill, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	pol, err := Build(Permissions{}, Target{WorkDir: wd, SkillDir: skill, TempDir: tmp, Program: "/bin/sh"})
	if err != nil {
		t.Fatal(err)
	}
	if pol.Net != NetNone || pol.MaxProcs != DefaultMaxProcs {
		t.Errorf("net %s, max procs %d; want none, %d", pol.Net, pol.MaxProcs, DefaultMaxProcs)
	}
	access := map[string]Access{}
	for _, r := range pol.Rules {
		access[r.Path] |= r.Access
	}
	if access[wd] != Read|Write || access[skill]&Write != 0 || access[tmp] != Read|Write {
		t.Errorf("work %v, skill %v, temp %v; want rw, read-only, rw", access[wd], access[skill], access[tmp])
	}
	home, _ := os.UserHomeDir()
	if _, ok := access[home]; ok && home != "" {
		t.Errorf("$HOME %s is granted", home)
	}
}

// TestBuildWriteGlobThroughLink: a write glob whose folder would be
// created through a link out of the work folder is refused before
// anything is created there.
func TestBuildWriteGlobThroughLink(t *testing.T) {
	work, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(outside, filepath.Join(work, "a")); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	_, err := Build(Permissions{Declared: true, Write: []string{"a/b/**"}}, Target{WorkDir: work})
	if err == nil || !strings.Contains(err.Error(), "outside the work folder") {
		t.Fatalf("Build: %v; want the glob refused as outside the work folder", err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "b")); !os.IsNotExist(err) {
		t.Errorf("%s/b: %v; want it never created", outside, err)
	}
}
