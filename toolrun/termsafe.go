package toolrun

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// termSafe is the live copy of a handler's stderr on skillpm's own stderr,
// usually the user's terminal: control characters other than tab, newline
// and carriage return, and the C1 controls (U+0080 to U+009F, which some
// terminals take as ESC sequences), are written as \xNN, so that a
// handler cannot drive the terminal (set its title, write the clipboard
// with OSC 52, clear or redraw what skillpm printed). The captured stderr
// in results is JSON-encoded, and needs none of this.
type termSafe struct {
	w       io.Writer
	pending bool // the last byte written was 0xC2, the first of a C1 control's two
	out     []byte
}

func (t *termSafe) Write(p []byte) (int, error) {
	t.out = t.out[:0]
	for _, b := range p {
		if t.pending {
			t.pending = false
			if b >= 0x80 && b <= 0x9f {
				t.out = fmt.Appendf(t.out, `\xc2\x%02x`, b)
				continue
			}
			t.out = append(t.out, 0xc2)
		}
		switch {
		case b == 0xc2:
			t.pending = true
		case b < 0x20 && b != '\t' && b != '\n' && b != '\r', b == 0x7f:
			t.out = fmt.Appendf(t.out, `\x%02x`, b)
		default:
			t.out = append(t.out, b)
		}
	}
	if _, err := t.w.Write(t.out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes a 0xC2 held back at the end.
func (t *termSafe) Flush() {
	if t.pending {
		t.pending = false
		t.w.Write([]byte{0xc2})
	}
}

// printable returns s with the control characters a terminal acts on
// written as \xNN, like termSafe, carriage returns and invalid UTF-8
// too: for error messages, which quote what handlers printed and end up
// on skillpm's stderr.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if unprintable(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unprintable(r):
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, `\x%02x`, c)
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unprintable reports whether r is a control character other than tab
// and newline, or invalid UTF-8.
func unprintable(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f || r == utf8.RuneError
}
