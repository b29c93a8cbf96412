package command

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillpm/skillpm/skill"
)

// Text that comes from registries and skills (names, descriptions,
// annotations, tool descriptions, signer identities, error messages that
// quote them) is escaped before it is printed for people, always, not
// only on a terminal: output captured in a log or a CI transcript is
// read in a terminal later. Terminal controls (skill.IsTerminalControl:
// ESC, BEL, CR, DEL, C1, bidi overrides) and bytes that are not UTF-8
// are written as Go escapes (\x1b, \u202e, \xff), so a skill cannot
// rewrite the screen or fake a line of skillpm's output. --json output
// is escaped by encoding/json instead.

// TermLine escapes s for a single-line field or a table cell: newlines
// and tabs are escaped too, so one field cannot start a line of its own.
// Nor can it give a CI runner a command (ciText).
func TermLine(s string) string { return ciText(termEscape(s, true)) }

// TermText escapes s for multi-line text (messages, prompts): newlines
// and tabs are kept, and no line gives a CI runner a command (ciText).
func TermText(s string) string { return ciText(termEscape(s, false)) }

// ciText keeps text from giving commands to a CI runner: on
// GitHub Actions a log line that starts (after blanks: the runner trims
// every Unicode one, a no-break space too) with "::" is a
// workflow command (::add-mask::, ::stop-commands::, ::error::), and
// "##[" anywhere in a line is one of the older form. An error message
// quoting a registry's or a git server's words, a progress line or a
// table cell quoting a skill could otherwise print one; the first colon
// or hash of such a command is written as a Go escape (\x3a, \x23), as
// controls are. A table cell that starts with "::" is escaped too,
// wherever it lands in its line.
func ciText(s string) string {
	if !strings.Contains(s, "::") && !strings.Contains(s, "##[") {
		return s
	}
	s = strings.ReplaceAll(s, "##[", `#\x23[`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		rest := strings.TrimLeftFunc(l, unicode.IsSpace)
		if strings.HasPrefix(rest, "::") {
			lines[i] = l[:len(l)-len(rest)] + `\x3a` + rest[1:]
		}
	}
	return strings.Join(lines, "\n")
}

func termEscape(s string, oneLine bool) string {
	if !needsEscape(s, oneLine) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n' && oneLine:
			b.WriteString(`\n`)
		case r == '\t' && oneLine:
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && skill.IsTerminalControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case skill.IsTerminalControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether termEscape would change s: the common case,
// plain text, is returned as is without allocating.
func needsEscape(s string, oneLine bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && (oneLine || c != '\n' && c != '\t') || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || skill.IsTerminalControl(r) {
			return true
		}
		i += size
	}
	return false
}
