package command

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestHandles(t *testing.T) {
	for _, c := range []struct {
		args string
		want bool
	}{
		{"skillpm --version", true},
		{"skillpm -V", true},
		{"skillpm list", true},
		{"skillpm ls --all --json", true},
		{"skillpm --json list", true},
		{"skillpm -C dir tools --json", false}, // -C is not a global flag: its value reads as the command
		{"skillpm tools --json", true},
		{"skillpm status --json", true},
		{"skillpm run count_words text=hi", true},
		{"skillpm prompt --format xml", true},
		{"skillpm search pdf", true},
		{"skillpm version --json", true},
		{"skillpm list --help", true},
		{"skillpm", false},
		{"skillpm --help", false},
		{"skillpm help list", false},
		{"skillpm --version --json", false}, // not the bare probe: the full program's version command
		{"skillpm install", true},
		{"skillpm i --frozen", true},
		{"skillpm add pdf", false},
		{"skillpm index refresh", false},
		{"skillpm mcp", false},
		{"skillpm lst", false}, // unknown: the full program suggests 'list'
		{"skillpm list --generate-bash-completion", false},
		{"skillpm -- list", false},
	} {
		if got := Handles(strings.Fields(c.args)); got != c.want {
			t.Errorf("Handles(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// FindFull fails with ErrNoFull, naming where it looked, when
// skillpm-full is neither beside the test binary nor on PATH.
func TestFindFullMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FindFull()
	if err == nil || !strings.Contains(err.Error(), FullName+" is not installed") || LightExitCode(err) != ExitNoHelper {
		t.Fatalf("FindFull() = %v (exit %d), want ErrNoFull (exit %d)", err, LightExitCode(err), ExitNoHelper)
	}
}

func TestRevision(t *testing.T) {
	rev := "0123456789abcdef0123456789abcdef01234567"
	for _, tc := range []struct {
		settings []debug.BuildSetting
		want     string
	}{
		{nil, ""},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}}, ""},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: rev}}, "0123456789ab"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "false"}}, "0123456789ab"},
		{[]debug.BuildSetting{{Key: "vcs.modified", Value: "true"}, {Key: "vcs.revision", Value: rev}}, "0123456789ab+modified"},
		{[]debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}, "abc"},
	} {
		if got := revision(&debug.BuildInfo{Settings: tc.settings}); got != tc.want {
			t.Errorf("revision(%v) = %q, want %q", tc.settings, got, tc.want)
		}
	}
}

func TestFrontMismatch(t *testing.T) {
	if msg := frontMismatch("dev@0123456789ab", "dev@0123456789ab"); msg != "" {
		t.Errorf("same build: %q, want no warning", msg)
	}
	msg := frontMismatch("v1.2.0", "dev@0123456789ab")
	for _, want := range []string{"skillpm-full", "build dev@0123456789ab", "build v1.2.0", "go install ./cmd/..."} {
		if !strings.Contains(msg, want) {
			t.Errorf("warning %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("warning %q is more than one line", msg)
	}
}

// The variable is whatever the environment holds (a user can set it, or
// a script that copies an environment): the warning quotes it escaped,
// on one line, and not at any length.
func TestFrontMismatchQuotesTheVariableEscaped(t *testing.T) {
	msg := frontMismatch("v1\x1b[2J\n::warning::x"+strings.Repeat("y", 10000), "dev@0123456789ab")
	if strings.ContainsAny(msg, "\x1b\n") || strings.Contains(msg, "\n::") {
		t.Errorf("warning %q quotes the variable unescaped", msg)
	}
	if len(msg) > 1000 {
		t.Errorf("warning is %d bytes long; want the variable cut", len(msg))
	}
}
