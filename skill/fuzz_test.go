package skill

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad writes the input as SKILL.md and loads and lints it: neither may
// panic, and a failed Load must be an *Error with a rule from Rules. The
// corpus is seeded from every SKILL.md file under testdata/skills.
//
//	go test ./skill -run '^$' -fuzz FuzzLoad -fuzztime 2m
func FuzzLoad(f *testing.F) {
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == FileName && d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			f.Add(data)
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("---\nname: x\ndescription: d\n---\n"))
	f.Add([]byte("---\r\nname: x\r\n...\r\n"))
	l, err := NewLinter()
	if err != nil {
		f.Fatal(err)
	}
	// Small limits keep each run cheap and exercise the limit paths.
	lim := Limits{MaxFile: 256 << 10, MaxFrontmatter: 16 << 10, MaxYAMLNodes: 5000}
	// One folder per fuzzing process, rewritten on every run: runs within
	// a process are sequential, and a fresh TempDir each time costs more
	// than Load itself.
	dir := filepath.Join(f.TempDir(), "fuzz")
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, FileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadWithLimits(dir, lim)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("LoadWithLimits() error %T %v; want *Error", err, err)
			}
			if _, ok := ruleByID[le.Rule]; !ok {
				t.Fatalf("LoadWithLimits() error rule %q is not in Rules", le.Rule)
			}
		} else {
			_ = s.Links()
		}
		res := l.Lint(dir, LintOptions{Limits: lim})
		if (err == nil) != (res.Skill != nil) {
			t.Fatalf("Load error %v but Lint loaded %v", err, res.Skill != nil)
		}
		for _, d := range res.Diagnostics {
			if _, ok := ruleByID[d.Rule]; !ok {
				t.Fatalf("diagnostic %s has a rule that is not in Rules", d)
			}
			if d.Line < 0 {
				t.Fatalf("diagnostic %s has a negative line", d)
			}
		}
	})
}

// FuzzToolsJSON lints a fixed SKILL.md beside a fuzzed tools.json, seeded
// from every tools.json under testdata/skills.
func FuzzToolsJSON(f *testing.F) {
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != ToolsFileName || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	l, err := NewLinter()
	if err != nil {
		f.Fatal(err)
	}
	md := []byte(skillMD(body, `spec_version: "2.1"`, "name: fuzz", "description: d", "version: 1.0.0", safetyOK))
	dir := filepath.Join(f.TempDir(), "fuzz")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), md, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, ToolsFileName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []Profile{ProfileAuto, ProfileSkillTools, ProfileUniversal} {
			res := l.Lint(dir, LintOptions{Profile: p})
			if res.Skill == nil {
				t.Fatalf("Lint(%q) did not load a valid SKILL.md: %s", p, messages(res.Diagnostics))
			}
		}
	})
}
