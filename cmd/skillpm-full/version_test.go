package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/command"
)

// The plain '--version' and '-V' take a short cut past the command tree;
// they must print what the version command prints, byte for byte.
func TestVersionFlagShortCut(t *testing.T) {
	runOut := func(args ...string) (string, int) {
		var out, errOut bytes.Buffer
		code := run(context.Background(), append([]string{"skillpm"}, args...), strings.NewReader(""), &out, &errOut)
		if errOut.Len() > 0 {
			t.Errorf("%v: stderr %q", args, errOut.String())
		}
		return out.String(), code
	}
	want, code := runOut("version")
	if code != command.ExitOK || !strings.HasPrefix(want, "skillpm ") {
		t.Fatalf("version: exit %d, %q", code, want)
	}
	for _, args := range [][]string{{"--version"}, {"-V"}, {"-q", "--version"}, {"--version", "--no-color"}} {
		if got, code := runOut(args...); got != want || code != command.ExitOK {
			t.Errorf("%v: exit %d, %q; want %q", args, code, got, want)
		}
	}
	wantJSON, _ := runOut("version", "--json")
	for _, args := range [][]string{{"--json", "--version"}, {"-V", "--json"}} {
		if got, _ := runOut(args...); got != wantJSON {
			t.Errorf("%v: %q; want %q", args, got, wantJSON)
		}
	}
}
