package verify

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxReason bounds one reason a bundle was rejected for.
const maxReason = 1024

// reason makes why a bundle was rejected (which may quote the bundle,
// so anything its sender wrote) one line (oneLine) of at most about
// maxReason bytes.
func reason(why string) string {
	s := oneLine(why)
	if len(s) <= maxReason {
		return s
	}
	cut := maxReason
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "… (" + strconv.Itoa(len(s)-cut) + " more bytes)"
}

// oneLine writes the control characters and line separators of s as Go
// escapes. Problems and reasons are printed one a line, in CI logs
// where a line of a registry's or a bundle's could be a workflow
// command ("::stop-commands::").
func oneLine(s string) string {
	if !strings.ContainsFunc(s, needsEscape) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if needsEscape(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func needsEscape(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }
