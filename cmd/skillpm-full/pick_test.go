package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/command"
)

// pickRepo makes a git repository holding the skills alpha, beta and
// gamma under skills/.
func pickRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	for _, n := range []string{"alpha", "beta", "gamma"} {
		d := filepath.Join(dir, "skills", n)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: %s\ndescription: The %s skill for tests.\n---\n# %s\n", n, n, n)
		if err := os.WriteFile(filepath.Join(d, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("add", "-A")
	git("commit", "-q", "-m", "skills")
	return dir
}

// TestAddPicksOnTerminal: 'add' of a repository of several skills,
// without --skill or --all, asks on a terminal (a numbered list, one
// line read) and adds what was picked; an empty answer or a wrong number
// adds nothing (exit 2); without a terminal it lists and fails, as
// before.
func TestAddPicksOnTerminal(t *testing.T) {
	repo := pickRepo(t)
	for _, tc := range []struct {
		terminal bool
		answer   string
		wantCode int
		want     []string
	}{
		{true, "3, 1\n", 0, []string{"alpha", "gamma"}},
		{true, "beta\n", 0, []string{"beta"}},
		{true, "all\n", 0, []string{"alpha", "beta", "gamma"}},
		{true, "\n", command.ExitUsage, nil},
		{true, "", command.ExitUsage, nil}, // end of input
		{true, "4\n", command.ExitUsage, nil},
		{false, "1\n", command.ExitUsage, nil},
	} {
		home := t.TempDir()
		t.Setenv("SKILLPM_HOME", home)
		// The repository is outside the project: the user allows it.
		if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("allow_local_git: ["+filepath.Dir(repo)+"]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		proj := t.TempDir()
		term := tc.terminal
		var out, errb bytes.Buffer
		e := &command.Env{Stdin: strings.NewReader(tc.answer), Stdout: &out, Stderr: &errb, Terminal: &term}
		code := runEnv(context.Background(), e, []string{"skillpm", "add", "--project", proj, "--no-index", "file://" + repo})
		if code != tc.wantCode {
			t.Errorf("terminal=%v answer %q: exit %d; want %d\nstderr: %s", tc.terminal, tc.answer, code, tc.wantCode, errb.String())
			continue
		}
		if tc.terminal && !strings.Contains(errb.String(), " 2) beta (skills/beta)") {
			t.Errorf("answer %q: stderr %q lacks the numbered list", tc.answer, errb.String())
		}
		y, _ := os.ReadFile(filepath.Join(proj, "skills.yaml"))
		for _, n := range []string{"alpha", "beta", "gamma"} {
			added := strings.Contains(string(y), "  "+n+":\n")
			if added != contains(tc.want, n) {
				t.Errorf("terminal=%v answer %q: %s added = %v; want %v\nskills.yaml:\n%s", tc.terminal, tc.answer, n, added, !added, y)
			}
		}
	}
}
