package command

import (
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
