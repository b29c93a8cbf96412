package command

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode"
)

func TestTermEscape(t *testing.T) {
	for _, tc := range []struct{ in, line, text string }{
		{"plain text, é 📄", "plain text, é 📄", "plain text, é 📄"},
		{"\x1b[2J\x1b[Hall skills verified OK\a", `\x1b[2J\x1b[Hall skills verified OK\x07`, `\x1b[2J\x1b[Hall skills verified OK\x07`},
		{"a\rb", `a\rb`, `a\rb`},
		{"one\ntwo\tthree", `one\ntwo\tthree`, "one\ntwo\tthree"},
		{"del\x7f nul\x00 bs\b", `del\x7f nul\x00 bs\x08`, `del\x7f nul\x00 bs\x08`},
		{"c1 \u009b2J", `c1 \u009b2J`, `c1 \u009b2J`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`, `bidi \u202eevil\u202c \u2066x\u2069`},
		{"bad \xff\x9b utf8", `bad \xff\x9b utf8`, `bad \xff\x9b utf8`},
		{"", "", ""},
	} {
		if got := TermLine(tc.in); got != tc.line {
			t.Errorf("TermLine(%q) = %q; want %q", tc.in, got, tc.line)
		}
		if got := TermText(tc.in); got != tc.text {
			t.Errorf("TermText(%q) = %q; want %q", tc.in, got, tc.text)
		}
	}
}

func BenchmarkTermLinePlain(b *testing.B) {
	s := "Extract text and tables from PDF files. Use it when the user gives a PDF."
	for b.Loop() {
		_ = TermLine(s)
	}
}

// A warning quotes skill names and paths as they are: a line break in one
// is escaped, so it cannot start a line skillpm seems to have written.
func TestWarnKeepsOneLine(t *testing.T) {
	var b strings.Builder
	warn(&Env{Stderr: &b}, []string{"skipping skill evil\nwarning: all skills verified\x1b[2K"})
	if got, want := b.String(), `warning: skipping skill evil\nwarning: all skills verified\x1b[2K`+"\n"; got != want {
		t.Errorf("warn wrote %q; want %q", got, want)
	}
}

// A registry's or git server's words quoted in an error give no command
// to a CI runner: no line of the report starts (after blanks) with "::",
// and no "##[" is left, while the words themselves stay readable.
func TestReportGivesCINoCommands(t *testing.T) {
	var stderr strings.Builder
	e := &Env{Stderr: &stderr}
	err := errors.New("pull r: denied: nope\n::warning::pwned\n  \t::add-mask::x\nremote: ##[error]fake ::notice::mid-line stays")
	Report(e, err)
	out := stderr.String()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") || strings.Contains(l, "##[") {
			t.Errorf("report line %q is a CI command", l)
		}
	}
	for _, want := range []string{`\x3a:warning::pwned`, `\x3a:add-mask::x`, `#\x23[error]fake`, "::notice::mid-line stays"} {
		if !strings.Contains(out, want) {
			t.Errorf("report %q does not keep %q", out, want)
		}
	}
	if got := ciText("error: plain\nsecond line"); got != "error: plain\nsecond line" {
		t.Errorf("ciText changed plain text: %q", got)
	}
}

// The runner trims every Unicode blank (.NET's TrimStart) before it
// looks for "::", not only spaces and tabs: a line led by a no-break or
// ideographic space is a workflow command too.
func TestReportGivesCINoCommandsAfterUnicodeBlanks(t *testing.T) {
	for _, blank := range []string{"\u00a0", "\u2003", "\u3000", "\u1680", "\u205f", " \u00a0\t"} {
		var stderr strings.Builder
		Report(&Env{Stderr: &stderr}, errors.New("pull r: denied: nope\n"+blank+"::add-mask::x"))
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") {
				t.Errorf("report line %q is a CI command", l)
			}
		}
	}
}

// Every escaped text gives a CI runner no command, not only Report's:
// progress lines (Logf), warnings, sync reports, verify problems and
// table cells quote registries and skills too, and a cell can start its
// line.
func TestTermEscapeGivesCINoCommands(t *testing.T) {
	isCommand := func(out string) bool {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimLeftFunc(l, unicode.IsSpace), "::") || strings.Contains(l, "##[") {
				return true
			}
		}
		return false
	}
	in := "::warning::pwned\n\u00a0::add-mask::x\nremote: ##[error]fake"
	if got := TermText(in); isCommand(got) {
		t.Errorf("TermText(%q) = %q, a CI command", in, got)
	}
	if got := TermLine(in); isCommand(got) {
		t.Errorf("TermLine(%q) = %q, a CI command", in, got)
	}
	var b strings.Builder
	(&Env{Stderr: &b}).Logf("pull %s", "r: denied\n::stop-commands::tok")
	if isCommand(b.String()) {
		t.Errorf("Logf wrote %q, a CI command", b.String())
	}
	if got := TermText("std::vector and a::b"); got != "std::vector and a::b" {
		t.Errorf("TermText changed %q", got)
	}
}

// --json output quotes registries and skills too, and GitHub Actions
// reads "##[" anywhere in a line, inside a JSON string as well: it is
// written as "#\u0023[", the same string to a JSON reader.
func TestWriteJSONGivesCINoCommands(t *testing.T) {
	want := map[string]string{"message": "denied ##[stop-commands]tok\n::add-mask::x"}
	var b strings.Builder
	if err := WriteJSON(&b, want); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "##[") {
		t.Errorf("WriteJSON wrote %q, a CI command", b.String())
	}
	var got map[string]string
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil || got["message"] != want["message"] {
		t.Errorf("WriteJSON wrote %q, which reads back as %q, %v; want %q", b.String(), got["message"], err, want["message"])
	}
}
