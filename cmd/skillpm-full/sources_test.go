package main

import "testing"

func TestSourceArgKind(t *testing.T) {
	for arg, want := range map[string]string{
		"https://example.com":                        argProbe,
		"https://example.com/docs":                   argProbe,
		"https://docs.github.io/skills":              argProbe, // not a .git segment
		"http://127.0.0.1:8080":                      argProbe,
		"https://git.example.com/acme/skills":        argProbe, // no index: read as git
		"wellknown+https://git.example.com/acme":     argWellKnown,
		"git+https://example.com/docs":               argGit,
		"https://example.com/acme/skills.git":        argGit,
		"https://example.com/acme/skills.git@v1.0.0": argGit,
		"https://example.com/acme/skills.git//pdf":   argGit,
		"https://example.com/acme/skills//pdf":       argGit,
		"https://example.com/acme/skills#main":       argGit,
		"https://github.com/acme/skills":             argGit,
		"https://GitLab.com/acme/skills":             argGit,
		"ssh://git@example.com/skills.git":           argGit,
		"git://127.0.0.1/mono":                       argGit,
		"github.com/acme/skills":                     argGit,
	} {
		if got, _ := sourceArgKind(arg); got != want {
			t.Errorf("sourceArgKind(%q) = %s; want %s", arg, got, want)
		}
	}
	for _, arg := range []string{"https://example.com", "git+https://example.com/x", "wellknown+http://127.0.0.1:1", "./skills/dev", "github.com/a/b"} {
		if !isSourceArg(arg) {
			t.Errorf("isSourceArg(%q) = false", arg)
		}
	}
	if _, rest := sourceArgKind("git+https://example.com/x"); rest != "https://example.com/x" {
		t.Errorf("git+ prefix kept: %q", rest)
	}
}
