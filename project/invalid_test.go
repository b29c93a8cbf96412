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
