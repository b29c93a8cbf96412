package audit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

func isBidi(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

func isTag(r rune) bool {
	return (r >= 0xE0000 && r <= 0xE007F) || (r >= 0xE0100 && r <= 0xE01EF)
}

// isInvisible reports characters that render as nothing. Zero-width
// joiners and non-joiners, and soft hyphens (visible only where a line
// breaks), are judged by their neighbours (see unicode).
func isInvisible(r rune) bool {
	switch r {
	case 0x200B, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xFEFF, 0x180E, 0x3164, 0x115F, 0x1160, 0xFFA0, 0x034F:
		return true
	}
	return false
}

// confusables are Cyrillic and Greek letters that look like Latin ones.
const confusables = "аеорсухіјѕԁԛԝӏАВЕКМНОРСТХІЈЅԜοαντυικρΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"

func isASCIILetter(r rune) bool { return r < 0x80 && (r|0x20 >= 'a' && r|0x20 <= 'z') }

func isASCIIWord(r rune) bool { return isASCIILetter(r) || (r >= '0' && r <= '9') }

// unicode reports, per line, the first bidirectional control, invisible
// character, run of tag characters and mixed-script word.
func (f *file) unicode() {
	data := f.data
	f.line(0) // build the line index
	for ln := range f.lines {
		start := f.lines[ln]
		end := len(data)
		if ln+1 < len(f.lines) {
			end = f.lines[ln+1]
		}
		line := bytes.TrimRight(data[start:end], "\r\n")
		if !hasMultibyte(line) {
			continue
		}
		var bidi, invis, tags, homo bool
		prev := rune(0)
		wordStart, latin, mixed := -1, 0, false
		for i := 0; i < len(line); {
			r, w := utf8.DecodeRune(line[i:])
			next := rune(0)
			if i+w < len(line) {
				next, _ = utf8.DecodeRune(line[i+w:])
			}
			off := start + i
			switch {
			case isBidi(r) && !bidi:
				bidi = true
				f.add(ruleBidi, off, shorten(fmt.Sprintf("<U+%04X>", r)+escapeRunes(string(line[i+w:min(len(line), i+w+60)]))),
					fmt.Sprintf("bidirectional control U+%04X: the text shows in a different order than the agent reads it", r))
			case isTag(r) && !tags:
				tags = true
				hidden, j := decodeTags(line[i:])
				f.add(ruleTags, off, shorten(fmt.Sprintf("hidden text %q", hidden)),
					fmt.Sprintf("%d invisible tag characters encode hidden text", j))
			case !invis && (isInvisible(r) && !(r == 0xFEFF && off == 0) ||
				(r == 0x200C || r == 0x200D || r == 0x00AD) && isASCIIWord(prev) && isASCIIWord(next)):
				invis = true
				f.add(ruleInvisible, off, shorten(string(line[max(0, i-20):min(len(line), i+w+20)])),
					fmt.Sprintf("invisible character U+%04X inside the text", r))
			}
			// Words: a run of letters mixing ASCII Latin with look-alikes.
			if unicode.IsLetter(r) {
				if wordStart < 0 {
					wordStart, latin, mixed = i, 0, false
				}
				if isASCIILetter(r) {
					latin++
				} else if strings.ContainsRune(confusables, r) {
					mixed = true
				}
			} else if wordStart >= 0 {
				if mixed && latin >= 2 && !homo {
					homo = true
					f.add(ruleHomoglyph, start+wordStart, shorten(string(line[wordStart:i])),
						"the word "+escapeRunes(string(line[wordStart:i]))+" mixes Latin letters with Cyrillic or Greek look-alikes")
				}
				wordStart = -1
			}
			prev = r
			i += w
		}
		if wordStart >= 0 && mixed && latin >= 2 && !homo {
			f.add(ruleHomoglyph, start+wordStart, shorten(string(line[wordStart:])),
				"the word "+escapeRunes(string(line[wordStart:]))+" mixes Latin letters with Cyrillic or Greek look-alikes")
		}
	}
}

// hasMultibyte reports whether b holds a byte of 0x80 or more, eight
// bytes at a time: every text file is checked.
func hasMultibyte(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return true
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// decodeTags reads the ASCII text a run of tag characters spells.
func decodeTags(b []byte) (string, int) {
	var sb strings.Builder
	n := 0
	for len(b) > 0 {
		r, w := utf8.DecodeRune(b)
		if !isTag(r) {
			break
		}
		n++
		if r >= 0xE0020 && r <= 0xE007E {
			sb.WriteRune(r - 0xE0000)
		} else if r >= 0xE0100 && sb.Len() < 200 {
			sb.WriteByte('?')
		}
		b = b[w:]
	}
	return sb.String(), n
}

// escapeRunes spells out the characters a terminal would hide or reorder,
// so a report never does to its reader what the skill tried to do.
func escapeRunes(s string) string {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError, isBidi(r), isTag(r), isInvisible(r), r == 0x200C, r == 0x200D, r == 0x00AD,
			r < 0x20 && r != '\t', r == 0x7F, r >= 0x80 && r < 0xA0:
			fmt.Fprintf(&sb, "<U+%04X>", r)
		case r >= 0x80 && (strings.ContainsRune(confusables, r)):
			fmt.Fprintf(&sb, "<U+%04X>", r)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// shorten escapes s and cuts it to 80 characters.
func shorten(s string) string {
	s = escapeRunes(maskSecret(strings.TrimSpace(s)))
	if utf8.RuneCountInString(s) <= 80 {
		return s
	}
	r := []rune(s)
	return string(r[:79]) + "…"
}

// maskSecret keeps the first characters of every secret in s and hides
// the rest.
func maskSecret(s string) string {
	sec, _ := RuleByID(ruleSecret)
	for _, r := range sec.pattern() {
		s = r.ReplaceAllStringFunc(s, func(m string) string {
			if strings.HasPrefix(m, "-----BEGIN") {
				return m // the header is not the secret
			}
			keep := min(6, len(m)/3)
			return m[:keep] + strings.Repeat("*", 8)
		})
	}
	return s
}
