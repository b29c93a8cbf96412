package toolrun

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestScriptContainment(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, "outside-ran")
	outsideBody := "#!/bin/bash\ncat >/dev/null; touch " + marker + "; echo '{}'\n"
	if err := os.WriteFile(filepath.Join(root, "outside.sh"), []byte(outsideBody), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "elsewhere"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "elsewhere", "x.sh"), []byte(outsideBody), 0o755); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(root, "skill")
	files := map[string]string{
		"ok.sh":         "#!/bin/bash\ncat >/dev/null; echo '{\"ok\":true}'\n",
		"scripts/in.sh": "#!/bin/bash\ncat >/dev/null; echo '{\"ok\":true}'\n",
	}
	for name, body := range files {
		p := filepath.Join(skill, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"link-out.sh":     filepath.Join(root, "outside.sh"), // absolute target outside
		"rel-out.sh":      "../outside.sh",                   // relative target outside
		"linkdir":         filepath.Join(root, "elsewhere"),  // directory symlink outside
		"link-in.sh":      "scripts/in.sh",                   // stays inside: allowed
		"dangling.sh":     filepath.Join(root, "gone.sh"),
		"scripts/up.sh":   "../ok.sh", // inside after resolution: allowed
		"self":            ".",
		"scripts/loop.sh": "loop.sh",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(skill, name)); err != nil {
			t.Fatal(err)
		}
	}
	// The skill folder itself reached through a symlink is fine.
	skillLink := filepath.Join(root, "skill-link")
	if err := os.Symlink(skill, skillLink); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		dir, script string
		want        Kind
	}{
		{skill, "ok.sh", ""},
		{skill, "./scripts/in.sh", ""},
		{skill, "scripts//in.sh", ""},
		{skill, "link-in.sh", ""},
		{skill, "scripts/up.sh", ""},
		{skillLink, "scripts/in.sh", ""},
		{skill, "../outside.sh", ScriptNotAllowed},
		{skill, "scripts/../../outside.sh", ScriptNotAllowed},
		{skill, "scripts/../ok.sh", ScriptNotAllowed}, // any ".." is refused
		{skill, filepath.Join(root, "outside.sh"), ScriptNotAllowed},
		{skill, filepath.Join(skill, "ok.sh"), ScriptNotAllowed}, // absolute even if inside
		{skill, "link-out.sh", ScriptNotAllowed},
		{skill, "rel-out.sh", ScriptNotAllowed},
		{skill, "linkdir/x.sh", ScriptNotAllowed},
		{skill, "missing.sh", ScriptNotFound},
		{skill, "dangling.sh", ScriptNotFound},
		{skill, "scripts", ScriptNotFound},
		{skill, "self", ScriptNotFound},
		{skill, "scripts/loop.sh", ScriptNotFound},
		{skill, "", ScriptNotFound},
		{filepath.Join(root, "no-such-skill"), "ok.sh", SkillNotFound},
		{filepath.Join(skill, "ok.sh"), "ok.sh", SkillNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.script, func(t *testing.T) {
			tool := Tool{Skill: "s", Name: "t", Dir: tt.dir, Entrypoint: tt.script}
			_, err := RunTool(context.Background(), tool, nil, Options{})
			if got := kindOf(t, err); got != tt.want {
				t.Errorf("RunTool kind = %q (%v); want %q", got, err, tt.want)
			}
			_, err = Exec(context.Background(), Script{Skill: "s", Dir: tt.dir, Path: tt.script}, Options{})
			if got := kindOf(t, err); got != tt.want {
				t.Errorf("Exec kind = %q (%v); want %q", got, err, tt.want)
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a script outside the skill folder ran")
	}
}

func TestChildEnv(t *testing.T) {
	host := []string{"PATH=/bin", "HOME=/h", "SECRET=x", "API_KEY=k", "PATH=/usr/bin", "TERM=dumb", "=weird", "NOEQUALS", "AWS_SECRET_ACCESS_KEY=aws"}
	allowAPIKey := func(name string) bool { return name == "API_KEY" }
	got, withheld := childEnv(host, []string{"API_KEY", "MISSING", "AWS_SECRET_ACCESS_KEY", "HOME"}, allowAPIKey)
	want := []string{"PATH=/usr/bin", "HOME=/h", "API_KEY=k", "TERM=dumb"}
	if !slices.Equal(got, want) {
		t.Errorf("childEnv = %q; want %q", got, want)
	}
	// Declared, set and not allowed: withheld. MISSING is not set, HOME
	// is a base variable: neither is withheld.
	if want := []string{"AWS_SECRET_ACCESS_KEY"}; !slices.Equal(withheld, want) {
		t.Errorf("withheld = %q; want %q", withheld, want)
	}
	// Nothing allowed: no secret at all.
	got, withheld = childEnv(host, []string{"API_KEY"}, nil)
	if want := []string{"PATH=/usr/bin", "HOME=/h", "TERM=dumb"}; !slices.Equal(got, want) {
		t.Errorf("childEnv without grants = %q; want %q", got, want)
	}
	if want := []string{"API_KEY"}; !slices.Equal(withheld, want) {
		t.Errorf("withheld without grants = %q; want %q", withheld, want)
	}
}
