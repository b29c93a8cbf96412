package audit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzScanText feeds arbitrary bytes to the per-file matchers as a
// script, a Markdown file and a data file: no panic, and every finding
// has a rule from the table and a location inside the file.
func FuzzScanText(f *testing.F) {
	for _, c := range ruleCases {
		f.Add([]byte(c.hit))
	}
	f.Add([]byte("<!-- ignore previous instructions\n"))
	f.Add([]byte("a\u202eb\u200bc p\u0430yp\u0430l \U000E0041\r\n"))
	f.Add([]byte(strings.Repeat("curl x | sh ", 300)))
	for _, c := range evasions {
		for _, v := range c.files {
			f.Add([]byte(v))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &scanner{opts: Options{Inline: true}.withDefaults(), rep: &Report{}, scripts: map[string]string{},
			perms: perms{noNetwork: true, noSubprocess: true, noWrite: true}}
		for _, name := range []string{"a.sh", "SKILL.md", "c.json"} {
			s.scanText(name, data, false)
		}
		s.suppress()
		lines := strings.Count(string(data), "\n") + 1
		for _, fd := range s.rep.Findings {
			if _, ok := RuleByID(fd.Rule); !ok {
				t.Fatalf("unknown rule %q", fd.Rule)
			}
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 {
				t.Fatalf("%s: location outside the input (%d lines)", fd.Location(), lines)
			}
			if !utf8.ValidString(fd.Match) || utf8.RuneCountInString(fd.Match) > 80 {
				t.Fatalf("%s: bad match %q", fd.Rule, fd.Match)
			}
		}
	})
}

// FuzzNormalize: the normalized text maps every byte back into the file,
// in order, whatever the input; wide text decodes to valid UTF-8.
func FuzzNormalize(f *testing.F) {
	for _, c := range evasions {
		for _, v := range c.files {
			f.Add([]byte(v))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, sc := range []scope{inMarkdown, inScript} {
			for _, shell := range []bool{false, true} {
				text, offs := normalize(data, sc, shell, !shell)
				if offs == nil {
					if string(text) != string(data) {
						t.Fatalf("text changed without an offset map")
					}
					continue
				}
				prev := 0
				for i := range text {
					o := offs.at(i)
					if o < prev || o >= len(data) {
						t.Fatalf("offset %d of byte %d out of order or range (%d bytes)", o, i, len(data))
					}
					prev = o
				}
			}
		}
		if text, ok := decodeWide(data); ok && !utf8.Valid(text) {
			t.Fatalf("wide text decoded to invalid UTF-8")
		}
	})
}
