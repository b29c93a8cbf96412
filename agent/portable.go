package agent

import (
	"encoding/json"
	"fmt"
	"strings"
)

// clientProblem returns why an MCP client might fail to compile the
// output schema schema, or "". The MCP TypeScript SDK compiles every
// tool's outputSchema with Ajv when it lists tools, and a schema Ajv
// cannot compile fails the whole tools/list: every tool of the server is
// lost to that client. Ajv compiles patterns as ECMAScript regular
// expressions with the u flag, where much of what Go's RE2 syntax takes
// is an error (\-, \z, (?i), [[:alpha:]], a literal {), and resolves a
// $ref only within the document. So a schema passes only with patterns
// in the subset both read alike (ecmaPattern) and $refs that are JSON
// pointers into the document.
func clientProblem(schema json.RawMessage) string {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return "it is not JSON"
	}
	return walkSchema(v)
}

func walkSchema(v any) string {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			switch s, isStr := x.(string); {
			case k == "pattern" && isStr:
				if err := ecmaPattern(s); err != nil {
					return fmt.Sprintf("pattern %q: %v", s, err)
				}
			case (k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef") && isStr:
				if s != "#" && !strings.HasPrefix(s, "#/") {
					return fmt.Sprintf("%s %q is not a JSON pointer into the schema", k, s)
				}
			case k == "patternProperties":
				if m, ok := x.(map[string]any); ok {
					for p := range m {
						if err := ecmaPattern(p); err != nil {
							return fmt.Sprintf("patternProperties %q: %v", p, err)
						}
					}
				}
			}
			if p := walkSchema(x); p != "" {
				return p
			}
		}
	case []any:
		for _, x := range v {
			if p := walkSchema(x); p != "" {
				return p
			}
		}
	}
	return ""
}

// ecmaPattern reports whether the regular expression p is written in the
// subset that RE2 and ECMAScript (u flag) both accept and read alike. It
// is conservative: what it cannot place is refused.
func ecmaPattern(p string) error {
	inClass := false
	classStart := false  // just after [ or [^
	classSet := false    // the last thing in the class was \d, \w, \s, \p{..}
	lastWasAtom := false // a quantifier may follow
	depth := 0           // open groups
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 == len(p) {
				return fmt.Errorf("ends in a backslash")
			}
			i++
			n, err := ecmaEscape(p[i:], inClass)
			if err != nil {
				return err
			}
			if inClass && strings.IndexByte("dDwWsSpP", p[i]) >= 0 {
				if i > 1 && p[i-2] == '-' && !classStart {
					return fmt.Errorf("a range ending in a class escape")
				}
				classSet = true
			} else {
				classSet = false
			}
			lastWasAtom = !inClass && p[i] != 'b' && p[i] != 'B' // \b and \B are assertions
			i += n - 1
			classStart = false
		case inClass && c == '-' && classSet && i+1 < len(p) && p[i+1] != ']':
			return fmt.Errorf("a range starting with a class escape")
		case inClass:
			classSet = false
			switch {
			case c == ']' && !classStart:
				inClass, lastWasAtom = false, true
			case c == '[' && i+1 < len(p) && p[i+1] == ':':
				return fmt.Errorf("POSIX class [:...:] is RE2 only")
			case c == '[':
				return fmt.Errorf("an unescaped [ inside a class is read differently")
			}
			if c == ']' && classStart {
				return fmt.Errorf("a ] first in a class is a literal in RE2 only")
			}
			classStart = false
		case c == '[':
			inClass, classStart, classSet = true, true, false
			if i+1 < len(p) && p[i+1] == '^' {
				i++
			}
		case c == '(':
			depth++
			if strings.HasPrefix(p[i:], "(?") {
				switch {
				case strings.HasPrefix(p[i:], "(?:"):
					i += 2
				case strings.HasPrefix(p[i:], "(?<") && i+3 < len(p) && isNameStart(p[i+3]):
					end := strings.IndexByte(p[i:], '>')
					if end < 0 {
						return fmt.Errorf("an unclosed group name")
					}
					for _, r := range p[i+3 : i+end] {
						if r > 0x7f || !isNameStart(byte(r)) && (r < '0' || r > '9') {
							return fmt.Errorf("group name %q is not in both RE2 and ECMAScript", p[i+3:i+end])
						}
					}
					i += end
				default:
					return fmt.Errorf("group %.4q… is not in both RE2 and ECMAScript", p[i:])
				}
			}
			lastWasAtom = false
		case c == ')':
			if depth == 0 {
				return fmt.Errorf("an unopened )")
			}
			depth--
			lastWasAtom = true
		case c == '|' || c == '^' || c == '$':
			lastWasAtom = false
		case c == '*' || c == '+' || c == '?':
			if !lastWasAtom {
				return fmt.Errorf("%q repeats nothing", c)
			}
			if i+1 < len(p) && p[i+1] == '?' {
				i++ // lazy
			}
			lastWasAtom = false
		case c == '{':
			n := quantifierLen(p[i:])
			if n == 0 {
				return fmt.Errorf("a literal { is an error with the u flag")
			}
			if !lastWasAtom {
				return fmt.Errorf("a quantifier that repeats nothing")
			}
			i += n - 1
			if i+1 < len(p) && p[i+1] == '?' {
				i++
			}
			lastWasAtom = false
		case c == '}' || c == ']':
			return fmt.Errorf("a literal %c is an error with the u flag", c)
		default:
			lastWasAtom = true
		}
	}
	if inClass {
		return fmt.Errorf("an unclosed class")
	}
	if depth > 0 {
		return fmt.Errorf("an unclosed group")
	}
	return nil
}

// ecmaEscape checks the escape after a backslash at the start of s and
// returns its length.
func ecmaEscape(s string, inClass bool) (int, error) {
	c := s[0]
	switch {
	case strings.IndexByte(`^$\.*+?()[]{}|/`, c) >= 0:
		return 1, nil
	case c == '-' && inClass:
		return 1, nil
	case strings.IndexByte("dDwWsSfnrtv", c) >= 0:
		return 1, nil
	case (c == 'b' || c == 'B') && !inClass:
		return 1, nil
	case c == 'x':
		if len(s) >= 3 && isHex(s[1]) && isHex(s[2]) {
			return 3, nil
		}
		return 0, fmt.Errorf(`\x takes two hex digits in ECMAScript`)
	case c == 'p' || c == 'P':
		if len(s) >= 2 && s[1] == '{' {
			if end := strings.IndexByte(s, '}'); end > 2 {
				return end + 1, nil
			}
		}
		return 0, fmt.Errorf(`\%c takes a {name} in ECMAScript`, c)
	}
	return 0, fmt.Errorf(`\%c is an error with the u flag or RE2 only`, c)
}

// quantifierLen returns the length of the {n}, {n,} or {n,m} at the
// start of s, or 0.
func quantifierLen(s string) int {
	i := 1
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return 0
	}
	if i < len(s) && s[i] == ',' {
		i++
		digits()
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}
