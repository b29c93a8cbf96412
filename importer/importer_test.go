package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var bg = context.Background()

// copyTree copies the committed fixture src into a temporary folder.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

var projectDirs = []string{".claude/skills", ".agents/skills", ".gemini/skills"}

func find(t *testing.T, r *Result, name string) *Proposal {
	t.Helper()
	for _, p := range r.Proposals {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("no proposal for %s in %+v", name, r.Proposals)
	return nil
}

// TestScanProject reads the committed skills-lock.json and
// toolhive.lock.yaml and the project's discovery folders (one folder
// the skills CLI linked, one hand-copied).
func TestScanProject(t *testing.T) {
	root := copyTree(t, "testdata/project")
	if err := os.Symlink("../../.agents/skills/docx", filepath.Join(root, ".claude/skills/docx")); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(bg, Options{Root: root, Dirs: projectDirs, Existing: []string{"frontend-design"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{SkillsLockFile, ToolHiveLockFile}; !reflect.DeepEqual(res.Files, want) {
		t.Errorf("files %v; want %v", res.Files, want)
	}
	var names []string
	for _, p := range res.Proposals {
		names = append(names, p.Name)
	}
	if want := []string{"code-review", "docx", "meeting-notes", "pdf", "toolhive-cli-user", "toolhive-demo", "vercel-deploy"}; !reflect.DeepEqual(names, want) {
		t.Errorf("proposals %v; want %v", names, want)
	}
	if !reflect.DeepEqual(res.Skipped, []string{"frontend-design"}) {
		t.Errorf("skipped %v", res.Skipped)
	}
	tests := []struct {
		name   string
		kind   Kind
		entry  Entry
		pinned bool
		note   string
	}{
		{"docx", KindGit, Entry{Git: "github.com/anthropics/skills", Ref: "main"}, false, "does not record the skill's folder"},
		{"pdf", KindGit, Entry{Git: "github.com/anthropics/skills", Ref: "c5ab0d2c6b1e4f1d9a7e3b8f2c4d6e8a0b1c3d5e"}, true, "also in toolhive.lock.yaml"},
		{"vercel-deploy", KindNone, Entry{}, false, `source type "node_modules"`},
		{"code-review", KindGit, Entry{Git: "github.com/stacklok/toolhive", Path: "skills/code-review", Ref: "4f2a9c1e7b3d5f8a0c2e4b6d8f1a3c5e7b9d0f2a"}, true, "pinned to the commit ToolHive installed"},
		{"toolhive-demo", KindOCI, Entry{Registry: "ghcr.io/stacklok/toolhive/skills", Version: "1.0.0"}, true, ""},
		{"toolhive-cli-user", KindNone, Entry{}, false, `no semver version or tag (tag "latest")`},
		{"meeting-notes", KindNone, Entry{}, false, "no installer recorded"},
	}
	for _, tt := range tests {
		p := find(t, res, tt.name)
		if p.Kind != tt.kind || p.Entry != tt.entry || p.Pinned != tt.pinned || !strings.Contains(strings.Join(p.Notes, "\n"), tt.note) {
			t.Errorf("%s: %s %+v pinned=%v notes %q; want %s %+v pinned=%v and a note containing %q", tt.name, p.Kind, p.Entry, p.Pinned, p.Notes, tt.kind, tt.entry, tt.pinned, tt.note)
		}
	}
	docx := find(t, res, "docx")
	want := []Folder{{Path: ".claude/skills/docx", Link: "../../.agents/skills/docx"}, {Path: ".agents/skills/docx"}}
	if !reflect.DeepEqual(docx.Folders, want) {
		t.Errorf("docx folders %+v; want %+v", docx.Folders, want)
	}
	if f := find(t, res, "meeting-notes").Folders; len(f) != 1 || f[0].Path != ".claude/skills/meeting-notes" {
		t.Errorf("meeting-notes folders %+v", f)
	}
}

// TestScanGlobal reads the skills CLI's global lock (version 3) from
// ~/.agents, or from $XDG_STATE_HOME/skills when that is set.
func TestScanGlobal(t *testing.T) {
	home := copyTree(t, "testdata/home")
	res, err := Scan(bg, Options{Root: home, Global: true, Dirs: []string{".agents/skills", ".claude/skills"}})
	if err != nil {
		t.Fatal(err)
	}
	rn := find(t, res, "release-notes")
	if rn.Kind != KindGit || rn.Entry != (Entry{Git: "github.com/acme/agent-skills", Path: "skills/release-notes", Ref: "v2.1.0"}) || len(rn.Folders) != 1 {
		t.Errorf("release-notes: %+v", rn)
	}
	if rn.Digest != "git-tree:8d3f1a2b4c5d6e7f8091a2b3c4d5e6f708192a3b" {
		t.Errorf("release-notes digest %q", rn.Digest)
	}
	if bv := find(t, res, "brand-voice"); bv.Kind != KindWellKnown || bv.Entry.WellKnown != "https://docs.example.com" {
		t.Errorf("brand-voice: %+v", bv)
	}
	state := t.TempDir()
	os.MkdirAll(filepath.Join(state, "skills"), 0o755)
	os.Rename(filepath.Join(home, ".agents", SkillsGlobalLockFile), filepath.Join(state, "skills", SkillsGlobalLockFile))
	res, err = Scan(bg, Options{Root: home, Global: true, StateHome: state})
	if err != nil || len(res.Proposals) != 2 {
		t.Errorf("with XDG_STATE_HOME: %v, %+v", err, res)
	}
}

// TestScanHostile: lock files are hostile input. What could become a
// path, a command-line option or an unbounded read is refused with the
// file named, or proposed as nothing.
func TestScanHostile(t *testing.T) {
	tests := []struct {
		name, file, body string
		wantErr          string
		wantNote         string
	}{
		{"name that is a path", SkillsLockFile, `{"version":1,"skills":{"../../x":{"source":"a/b","sourceType":"github"}}}`, `"../../x": not a valid skill name`, ""},
		{"not JSON", SkillsLockFile, `<<<<<<< HEAD`, "not the skills CLI's JSON lock", ""},
		{"no skills", SkillsLockFile, `{"version":1}`, "with no skills object", ""},
		{"control characters", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"a/b\u001b[2J","sourceType":"github"}}}`, "control characters", ""},
		{"git option", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"x","sourceType":"git","sourceUrl":"--upload-pack=touch /tmp/pwned"}}}`, "", "not a git repository skillpm reads"},
		{"ext transport", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"x","sourceType":"git","sourceUrl":"ext::sh -c touch% /tmp/pwned"}}}`, "", "not a git repository skillpm reads"},
		{"skill path out of the repository", SkillsLockFile, `{"version":3,"skills":{"x":{"source":"a/b","sourceType":"github","skillPath":"../../etc/SKILL.md"}}}`, "", "leaves the repository"},
		{"ref that is an option", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"a/b","sourceType":"github","ref":"--output=/tmp/x"}}}`, "", "not a valid git ref"},
		{"local folder out of the project", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"../../etc","sourceType":"local"}}}`, "", "outside the project"},
		{"local folder at an absolute path", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"/etc","sourceType":"local"}}}`, "", "outside the project"},
		{"git repository elsewhere on this machine", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"x","sourceType":"git","sourceUrl":"file:///home/someone/private.git"}}}`, "", "outside the project"},
		{"git repository above the project", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"file:///../../x.git","sourceType":"git"}}}`, "", "outside the project"},
		{"git repository on a share", SkillsLockFile, `{"version":1,"skills":{"x":{"source":"x","sourceType":"git","sourceUrl":"file://fileserver/share/x.git"}}}`, "", "outside the project"},
		{"wrong types", SkillsLockFile, `{"version":"1","skills":{"x":{"source":5}}}`, "not the skills CLI's JSON lock", ""},
		{"skills a list", SkillsLockFile, `{"version":1,"skills":[{"source":"a/b"}]}`, "not the skills CLI's JSON lock", ""},
		{"toolhive wrong types", ToolHiveLockFile, "version: 1\nskills:\n  name: x\n", "not ToolHive's lock YAML", ""},
		{"toolhive version 2", ToolHiveLockFile, "version: 2\nskills: []\n", "version 2", ""},
		{"toolhive name that is a path", ToolHiveLockFile, "version: 1\nskills:\n  - name: ../x\n    source: ghcr.io/a/x:1.0.0\n", `"../x": not a valid skill name`, ""},
		{"toolhive repository of another skill", ToolHiveLockFile, "version: 1\nskills:\n  - name: pdf\n    source: ghcr.io/a/evil:1.0.0\n", "", "not named for the skill"},
		{"toolhive git path out of the repository", ToolHiveLockFile, "version: 1\nskills:\n  - name: x\n    source: git://github.com/a/b#../../x\n", "", "leaves the repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, tt.file), []byte(tt.body), 0o644)
			res, err := Scan(bg, Options{Root: root})
			if tt.wantErr != "" {
				var fe *FileError
				if !errors.Is(err, ErrFormat) || !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasSuffix(fe.File, tt.file) {
					t.Fatalf("Scan: %v; want a FileError naming %s containing %q", err, tt.file, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Proposals) != 1 || res.Proposals[0].Kind != KindNone || !strings.Contains(strings.Join(res.Proposals[0].Notes, "\n"), tt.wantNote) {
				t.Fatalf("proposals %+v; want one of kind none noting %q", res.Proposals[0], tt.wantNote)
			}
		})
	}
	// Oversized, and a link instead of a file.
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, SkillsLockFile), make([]byte, MaxFileSize+1), 0o644)
	if _, err := Scan(bg, Options{Root: root}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized lock: %v", err)
	}
	root = t.TempDir()
	os.Symlink("/etc/passwd", filepath.Join(root, ToolHiveLockFile))
	if _, err := Scan(bg, Options{Root: root}); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("linked lock: %v", err)
	}
}

// A file:// repository inside the project (a vendored repository) is
// still imported as a git source.
func TestScanFileRepoInside(t *testing.T) {
	root := t.TempDir()
	body := `{"version":1,"skills":{"x":{"source":"x","sourceType":"git","sourceUrl":"file:///` + strings.TrimPrefix(filepath.ToSlash(filepath.Join(root, "vendor", "skills.git")), "/") + `"}}}`
	if err := os.WriteFile(filepath.Join(root, SkillsLockFile), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Scan(bg, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if p := find(t, res, "x"); p.Kind != KindGit {
		t.Fatalf("proposal %+v; want a git source", p)
	}
}
