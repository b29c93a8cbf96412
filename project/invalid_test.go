package project

import (
	"errors"
	"testing"
)

// Every error about a readable but bad skills.yaml is ErrInvalid, so
// the CLI gives it one documented exit code.
func TestParseErrorsAreInvalid(t *testing.T) {
	for _, bad := range []string{
		"skills:\n  x: [\n",
		"skills:\n  x:\n    local: ../../etc\n",
		"skills:\n  x:\n    git: github.com/a/b\n    tag: v1\n",
		"agents: [nobody]\n",
		"skills:\n  Bad_Name: ^1\n",
	} {
		if _, err := Parse([]byte(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q): err = %v; want ErrInvalid", bad, err)
		}
	}
}

// A source whose path holds . or .. segments is refused: the server
// resolves them, but a trust policy's prefix sees the path as written,
// so github.com/acme/../evil/x would pass for one of github.com/acme's.
func TestDotSegmentsRefused(t *testing.T) {
	for _, bad := range []string{
		"git: https://github.com/acme/../evil/skills",
		"git: https://git.example.com/acme/%2e%2e/evil/skills.git",
		"git: git@github.com:acme/../evil/skills.git",
		"git: github.com/acme/./../evil/skills",
		"wellknown: https://example.com/team/../other",
		"wellknown: https://example.com/team/%2E%2E/other",
		"wellknown: ftp://example.com",
	} {
		_, err := Parse([]byte("skills:\n  x:\n    " + bad + "\n"))
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%s): err = %v; want ErrInvalid", bad, err)
		}
	}
	for _, good := range []string{
		"git: https://github.com/acme/skills",
		"git: git@github.com:acme/skills.git",
		"git: https://github.com/acme/skills//skills/pdf",
		"wellknown: https://example.com/team",
		"wellknown: http://127.0.0.1:8080",
	} {
		if _, err := Parse([]byte("skills:\n  x:\n    " + good + "\n")); err != nil {
			t.Errorf("Parse(%s): %v; want it accepted", good, err)
		}
	}
}

// A target may not be the project root or lie inside .git: a skill
// named hooks installed into .git would be .git/hooks, run on commit.
func TestTargetsRefused(t *testing.T) {
	for _, bad := range []string{".", "./", ".git", "./.git/", "sub/.git", ".git/x/.."} {
		if _, err := Parse([]byte("targets: [\"" + bad + "\"]\n")); !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(targets: [%s]): err = %v; want ErrInvalid", bad, err)
		}
	}
	for _, good := range []string{".claude/skills", "tools/.github-skills", "skills"} {
		if _, err := Parse([]byte("targets: [\"" + good + "\"]\n")); err != nil {
			t.Errorf("Parse(targets: [%s]): %v; want it accepted", good, err)
		}
	}
}
