package skill

import (
	"fmt"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// textControlRule is the ID of the rule that keeps terminal controls out
// of frontmatter text: skillpm inspect, search and list print that text,
// and a raw ESC or BEL in it could rewrite what the user's terminal
// shows ("all skills verified OK").
const textControlRule = "text-control"

// IsTerminalControl reports whether r, printed raw, can drive a terminal
// or reorder what it shows: C0 controls other than tab and newline
// (ESC, BEL, CR, backspace…), DEL, C1 controls (U+0080-U+009F, CSI among
// them), and the Unicode bidirectional embeddings, overrides and isolates
// (U+202A-U+202E, U+2066-U+2069: the "Trojan Source" characters).
func IsTerminalControl(r rune) bool {
	switch {
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// checkTextControl reports every frontmatter key or value, at any depth,
// that holds a terminal control (IsTerminalControl). Aliases are not
// followed: what they name is checked where it is defined.
func (c *checker) checkTextControl() {
	d := c.s.fm
	if d == nil || d.root == nil {
		return
	}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			for i, r := range n.Value {
				if r == utf8.RuneError || !IsTerminalControl(r) {
					continue
				}
				c.skillMD(textControlRule, d.line(n), fmt.Sprintf("frontmatter text %s holds the control character U+%04X at byte %d; printed raw, it drives the terminal of whoever lists or inspects the skill", quoteShort(n.Value), r, i),
					"remove the control character (YAML escapes such as \"\\e\" and \"\\a\" write them too); use plain text")
				return // one diagnostic per scalar
			}
		case yaml.AliasNode:
			return
		default:
			for _, k := range n.Content {
				walk(k)
			}
		}
	}
	walk(d.root)
}

// quoteShort quotes s Go-style (control characters escaped), cut to 40
// runes, for a message.
func quoteShort(s string) string {
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return fmt.Sprintf("%+q", s)
}
