package toolrun

import (
	"bytes"
	"cmp"
	"io"
	"slices"
	"strings"
)

// minSecretLen is the shortest secret value that is redacted: shorter
// values ("1", "on") would blank out ordinary output.
const minSecretLen = 4

// redactor returns a replacer of the values that the declared secrets
// have in env by "[REDACTED:NAME]", or nil when there are none.
func redactor(env, declared []string) *strings.Replacer {
	type pair struct{ name, value string }
	var pairs []pair
	for _, name := range declared {
		if v := envValue(env, name); len(v) >= minSecretLen {
			pairs = append(pairs, pair{name, v})
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	// Longest values first, so a secret containing another is replaced
	// whole.
	slices.SortFunc(pairs, func(a, b pair) int { return cmp.Compare(len(b.value), len(a.value)) })
	var args []string
	for _, p := range pairs {
		args = append(args, p.value, "[REDACTED:"+p.name+"]")
	}
	return strings.NewReplacer(args...)
}

// lineRedactor writes whole lines to w with secrets replaced; Flush
// writes what is left. A secret split across writes is still caught,
// unless it spans a newline.
type lineRedactor struct {
	w   io.Writer
	r   *strings.Replacer
	buf []byte
}

func (l *lineRedactor) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	if i := bytes.LastIndexByte(l.buf, '\n'); i >= 0 {
		io.WriteString(l.w, l.r.Replace(string(l.buf[:i+1])))
		l.buf = append(l.buf[:0], l.buf[i+1:]...)
	}
	if len(l.buf) > 64*1024 { // a very long line: let it through in pieces
		io.WriteString(l.w, l.r.Replace(string(l.buf)))
		l.buf = l.buf[:0]
	}
	return len(p), nil
}

// Flush writes the unterminated last line.
func (l *lineRedactor) Flush() {
	if len(l.buf) > 0 {
		io.WriteString(l.w, l.r.Replace(string(l.buf)))
		l.buf = l.buf[:0]
	}
}
