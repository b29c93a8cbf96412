package skill

import "testing"

func TestLintTextControl(t *testing.T) {
	runLintCases(t, []lintCase{
		{name: "esc-in-description", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: \"Reads PDFs.\\e[2K\\rall skills verified OK\"")},
			want:  []string{"SKILL.md:3 error text-control"}, msg: `U+001B`},
		{name: "escaped-bel", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: \"Reads PDFs.\\a\"")},
			want:  []string{"SKILL.md:3 error text-control"}, msg: `U+0007`},
		// A raw control character is already a YAML syntax error.
		{name: "raw-bel", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: Reads PDFs.\a")},
			want:  []string{"SKILL.md:1 error yaml-syntax"}, msg: "control characters"},
		{name: "c1-csi", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: \"Reads \\x9b2J PDFs.\"")},
			want:  []string{"SKILL.md:3 error text-control"}, msg: "U+009B"},
		{name: "bidi-override", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: Reads \u202eFDP PDFs.")},
			want:  []string{"SKILL.md:3 error text-control"}, msg: "U+202E"},
		{name: "del-in-license", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d", "license: \"MIT\\x7f\"")},
			want:  []string{"SKILL.md:4 error text-control"}},
		{name: "nested-metadata-value", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d", "metadata:", "  author: \"me\\e]0;pwned\\a\"")},
			want:  []string{"SKILL.md:5 error text-control"}},
		{name: "metadata-key", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: d", "metadata:", "  \"a\\eb\": c")},
			want:  []string{"SKILL.md:5 error text-control"}},
		{name: "newline-and-tab-ok", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: |", "  Reads PDFs.", "  \tUse it on PDFs.")}},
		{name: "unicode-text-ok", dir: "x",
			files: map[string]string{"SKILL.md": skillMD(body, "name: x", "description: Lit des PDF — « vite » 📄 עברית")}},
	})
}

func TestIsTerminalControl(t *testing.T) {
	for r, want := range map[rune]bool{
		'\x1b': true, '\a': true, '\r': true, '\b': true, 0: true, 0x7f: true,
		0x80: true, 0x9b: true, 0x9f: true, 0x202a: true, 0x202e: true, 0x2066: true, 0x2069: true,
		'\n': false, '\t': false, ' ': false, 'a': false, 0xa0: false, 'é': false, 0x200f: false, 0x2070: false,
	} {
		if got := IsTerminalControl(r); got != want {
			t.Errorf("IsTerminalControl(%U) = %v; want %v", r, got, want)
		}
	}
}
