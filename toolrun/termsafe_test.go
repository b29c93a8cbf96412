package toolrun

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestTermSafe(t *testing.T) {
	for _, c := range []struct {
		writes []string
		want   string
	}{
		{[]string{"plain text\twith tab\r\n"}, "plain text\twith tab\r\n"},
		{[]string{"\x1b]52;c;cm0gLXJmIH4=\x07"}, `\x1b]52;c;cm0gLXJmIH4=\x07`},
		{[]string{"\x1b[2J\x1b[H", "fake\x7f"}, `\x1b[2J\x1b[Hfake\x7f`},
		{[]string{"\u009b31m 8-bit CSI"}, `\xc2\x9b31m 8-bit CSI`},
		{[]string{"split \xc2", "\x9b across writes"}, `split \xc2\x9b across writes`},
		{[]string{"é ü ½ ©"}, "é ü ½ ©"}, // 0xC2 and 0xC3 leading letters stay
		{[]string{"end \xc2"}, "end \xc2"},
	} {
		var b strings.Builder
		s := &termSafe{w: &b}
		for _, w := range c.writes {
			if n, err := s.Write([]byte(w)); n != len(w) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", w, n, err)
			}
		}
		s.Flush()
		if got := b.String(); got != c.want {
			t.Errorf("%q: got %q; want %q", c.writes, got, c.want)
		}
	}
}

// TestRunToolLiveStderrCannotDriveTheTerminal: what a handler writes to
// stderr reaches skillpm's stderr (the user's terminal) without its
// escape sequences; the captured copy keeps them (it is JSON-encoded).
func TestRunToolLiveStderrCannotDriveTheTerminal(t *testing.T) {
	body := "#!/bin/bash\ncat >/dev/null\nprintf '\\033]0;PWNED\\007\\033[2Jlog\\n' >&2\necho '{}'\n"
	dir := writeSkill(t, map[string]file{"h.sh": {body: body, mode: 0o755}})
	var live strings.Builder
	res, err := RunTool(context.Background(), Tool{Dir: dir, Entrypoint: "h.sh"}, json.RawMessage(`{}`), Options{Stderr: &live})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := live.String(), `\x1b]0;PWNED\x07\x1b[2Jlog`+"\n"; got != want {
		t.Errorf("live stderr %q; want %q", got, want)
	}
	if got, want := res.Stderr, "\x1b]0;PWNED\a\x1b[2Jlog\n"; got != want {
		t.Errorf("Result.Stderr %q; want %q", got, want)
	}

	// A failing handler's last line, quoted in the error skillpm prints.
	fail := "#!/bin/bash\ncat >/dev/null\nprintf '\\033[2Jfake prompt\\r\\n' >&2\nexit 3\n"
	dir = writeSkill(t, map[string]file{"f.sh": {body: fail, mode: 0o755}})
	_, err = RunTool(context.Background(), Tool{Dir: dir, Entrypoint: "f.sh"}, json.RawMessage(`{}`), Options{})
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\r") || !strings.Contains(err.Error(), `\x1b[2Jfake prompt`) {
		t.Errorf("error %q; want the handler's escape sequence written out", err)
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain\tline\nnext é":        "plain\tline\nnext é",
		"\x1b[31mred\x1b[0m":         `\x1b[31mred\x1b[0m`,
		"over\rwrite":                `over\x0dwrite`,
		"c1 \u009b and bad \xff\xc2": `c1 \xc2\x9b and bad \xff\xc2`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q; want %q", in, got, want)
		}
	}
}
