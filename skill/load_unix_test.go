//go:build unix

package skill

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLoadSpecialFiles(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte(skillMD(body, "name: x", "description: stolen")), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string) // makes dir/SKILL.md
		wantRule string
		wantMsg  string
	}{
		{"symlink-to-etc-passwd", func(t *testing.T, dir string) { symlink(t, "/etc/passwd", filepath.Join(dir, FileName)) },
			"skill-md-missing", "symlink to a file outside the skill folder"},
		{"symlink-to-skill-outside", func(t *testing.T, dir string) { symlink(t, secret, filepath.Join(dir, FileName)) },
			"skill-md-missing", "symlink to a file outside the skill folder"},
		{"relative-symlink-escaping", func(t *testing.T, dir string) {
			rel, err := filepath.Rel(dir, secret)
			if err != nil {
				t.Fatal(err)
			}
			symlink(t, rel, filepath.Join(dir, FileName))
		}, "skill-md-missing", "outside the skill folder"},
		{"symlink-to-directory", func(t *testing.T, dir string) { symlink(t, outside, filepath.Join(dir, FileName)) },
			"skill-md-missing", "symlink to something that is not a regular file"},
		{"symlink-loop", func(t *testing.T, dir string) { symlink(t, FileName, filepath.Join(dir, FileName)) },
			"skill-md-missing", "not a regular file"},
		{"dangling-symlink", func(t *testing.T, dir string) { symlink(t, "gone.md", filepath.Join(dir, FileName)) },
			"skill-md-missing", "not a regular file"},
		{"symlink-to-dev-zero", func(t *testing.T, dir string) { symlink(t, "/dev/zero", filepath.Join(dir, FileName)) },
			"skill-md-missing", "not a regular file"},
		{"fifo", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, FileName), 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "skill-md-missing", "SKILL.md is not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeSkill(t, "x", nil)
			tc.setup(t, dir)
			_, err := Load(dir)
			var le *Error
			if !errors.As(err, &le) || le.Rule != tc.wantRule || !strings.Contains(le.Msg, tc.wantMsg) {
				t.Fatalf("Load() error = %v; want rule %s containing %q", err, tc.wantRule, tc.wantMsg)
			}
		})
	}
}

func TestLoadSymlinkInsideFolder(t *testing.T) {
	dir := writeSkill(t, "x", map[string]string{"docs/real.md": skillMD(body, "name: x", "description: d")})
	symlink(t, "docs/real.md", filepath.Join(dir, FileName))
	s, err := Load(dir)
	if err != nil || s.Name() != "x" {
		t.Fatalf("Load() = %v, %v; want a symlink inside the folder followed", s, err)
	}
}

func TestLoadUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permission bits do not stop root from reading, so an unreadable file cannot be made (TestLoadNotASkill/path-through-a-file covers the unreadable rule)")
	}
	dir := writeSkill(t, "x", map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d")})
	p := filepath.Join(dir, FileName)
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(p, 0o644) })
	_, err := Load(dir)
	var le *Error
	if !errors.As(err, &le) || le.Rule != "unreadable" || !strings.Contains(le.Msg, "permission denied") || !strings.Contains(le.Fix, "permissions") {
		t.Fatalf("Load() error = %v; want an unreadable error about permissions", err)
	}
	res := newLinter(t).Lint(dir, LintOptions{})
	checkDiags(t, dir, res.Diagnostics, []string{"SKILL.md:0 error unreadable"}, "permission denied")
}

func TestLintSymlinkEscapes(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "t.py"), []byte(handlerPy), 0o644); err != nil {
		t.Fatal(err)
	}
	md := uniSkill(uniTool("t", "description: d", strictInput, "implementation: {runtime: python, entrypoint: scripts/t.py}")...)
	md = strings.Replace(md, body, "\n[notes](notes.md) and [inside](ok.md)\n", 1)
	dir := writeSkill(t, "x", map[string]string{"SKILL.md": md, "real.md": "ok"})
	symlink(t, filepath.Join(outside, "t.py"), filepath.Join(dir, "scripts", "t.py"))
	symlink(t, "/etc/hosts", filepath.Join(dir, "notes.md"))
	symlink(t, "real.md", filepath.Join(dir, "ok.md"))
	res := newLinter(t).Lint(dir, LintOptions{})
	checkDiags(t, dir, res.Diagnostics, []string{"SKILL.md:7 error tool-entrypoint-outside", "SKILL.md:14 error link-outside"}, "resolves outside the skill folder")
}

func TestLintToolsJSONSpecial(t *testing.T) {
	md := skillMD(body, "name: x", "description: d")
	dir := writeSkill(t, "x", map[string]string{"SKILL.md": md})
	if err := syscall.Mkfifo(filepath.Join(dir, ToolsFileName), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	res := newLinter(t).Lint(dir, LintOptions{})
	checkDiags(t, dir, res.Diagnostics, []string{"tools.json:0 error tools-json-syntax"}, "not a regular file")
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func TestLintToolsJSONSymlinkOutside(t *testing.T) {
	md := skillMD(body, "name: x", "description: d")
	dir := writeSkill(t, "x", map[string]string{"SKILL.md": md})
	outside := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(outside, []byte(`[{"name":"leak","description":"d"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, outside, filepath.Join(dir, ToolsFileName))
	res := newLinter(t).Lint(dir, LintOptions{})
	checkDiags(t, dir, res.Diagnostics, []string{"tools.json:0 error tools-json-syntax"}, "outside the skill folder")
	if len(res.Skill.Tools) != 0 {
		t.Errorf("tools read through an escaping symlink: %+v", res.Skill.Tools)
	}
}
