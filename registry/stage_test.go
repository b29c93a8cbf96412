package registry

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func symlinkEntry(name, target string) entry {
	return entry{name: name, typ: tar.TypeSymlink, link: target}
}
func dirEntry(name string) entry { return entry{name: name, typ: tar.TypeDir} }

// A symlink made through a symlink beside the skill that points into it
// lands in the skill while its name says it is beside it. It must be
// refused, not committed pointing outside (here at a file two folders up,
// or at /etc/passwd through 40 levels).
func TestUnpackLinkThroughLink(t *testing.T) {
	deep := strings.TrimSuffix(strings.Repeat("h/", 40), "/")
	for _, tc := range []struct {
		name    string
		entries []entry
	}{
		{"beside the skill", []entry{
			{name: "other/SKILL.md", body: skillMD},
			symlinkEntry("h1/h2/h3", "../../other"),
			symlinkEntry("h1/h2/h3/evil", "../../../secret"),
		}},
		{"forty levels to /etc/passwd", []entry{
			{name: "other/SKILL.md", body: skillMD},
			symlinkEntry(deep, strings.Repeat("../", 39)+"other"),
			symlinkEntry(deep+"/passwd", strings.Repeat("../", 40)+"etc/passwd"),
		}},
		{"a file through a link", []entry{
			dirEntry("pdf/"), dirEntry("pdf/sub/"), symlinkEntry("pdf/l", "sub"),
			{name: "pdf/l/f", body: "f"}, {name: "pdf/SKILL.md", body: skillMD},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parent := filepath.Join(t.TempDir(), "a", "skills")
			dst := filepath.Join(parent, "out")
			_, err := Unpack(bg, bytes.NewReader(archive(t, tc.entries...)), dst, UnpackOptions{})
			if err == nil || !strings.Contains(err.Error(), "goes through the symlink") {
				t.Errorf("Unpack: %v; want it refused as going through a symlink", err)
			}
			if _, err := os.Lstat(dst); err == nil {
				t.Errorf("%s exists after a refused unpack", dst)
			}
		})
	}
}

// Folders are 0755 (less the umask) whatever became the skill folder:
// the staging folder, the folder unstripping makes, or one the archive
// names.
func TestUnpackFolderModes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []entry
		dirs    []string
	}{
		{"rooted", []entry{dirEntry("pdf/"), {name: "pdf/SKILL.md", body: skillMD}, dirEntry("pdf/d/")}, []string{".", "d"}},
		{"at the top", []entry{{name: "SKILL.md", body: skillMD}, dirEntry("d/")}, []string{".", "d"}},
		{"folder first, then the top", []entry{dirEntry("docs/"), {name: "docs/g", body: "g"}, dirEntry("scripts/"), {name: "SKILL.md", body: skillMD}}, []string{".", "docs", "scripts"}},
		{"rooted, then a top file", []entry{{name: "pdf/SKILL.md", body: skillMD}, {name: "README", body: "x"}}, []string{"."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "out")
			if _, err := Unpack(bg, bytes.NewReader(archive(t, tc.entries...)), dst, UnpackOptions{}); err != nil {
				t.Fatal(err)
			}
			for _, d := range tc.dirs {
				fi, err := os.Stat(filepath.Join(dst, d))
				if err != nil {
					t.Fatal(err)
				}
				if got, want := fi.Mode().Perm(), os.FileMode(0o755)&^umask(); got != want {
					t.Errorf("%s: mode %v; want %v", d, got, want)
				}
			}
		})
	}
}

// umask is the process's umask (no test here runs in parallel with one
// that changes it).
func umask() os.FileMode {
	m := setUmask(0)
	setUmask(m)
	return os.FileMode(m)
}
