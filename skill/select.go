package skill

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/internal/lazyre"
)

// DefaultThreshold is the Universal spec's default selection threshold
// (§10).
const DefaultThreshold = 3

// Selection scores (§10).
const (
	ScoreFileType = 3 // per when_to_use.file_types entry matched
	ScoreMention  = 2 // per when_to_use.mentions entry matched
	ScoreIntent   = 1 // per when_to_use.intents entry matched
)

// Candidate is what selection needs to know about one skill.
type Candidate struct {
	Name      string
	Tools     []string
	WhenToUse *WhenToUse
}

// Query is what selection matches skills against.
type Query struct {
	// Text is the user's request.
	Text string
	// Files are the paths the request concerns (attachments, open files).
	Files []string
	// Intents are host-derived intent labels.
	Intents []string
	// Threshold is the lowest score selected. 0 means DefaultThreshold;
	// a negative value selects every skill.
	Threshold int
}

// Scored is one skill's selection outcome.
type Scored struct {
	Name     string `json:"name"`
	Score    int    `json:"score"`
	Priority int    `json:"priority"`
	// Named reports a manual override: the text names the skill or one of
	// its tools.
	Named bool `json:"named"`
	// Selected reports that the skill is named or scores at least the
	// threshold.
	Selected bool `json:"selected"`
	// Matches say what scored, e.g. "file_type .pdf +3", "mention pdf +2",
	// "intent document_extraction +1", "named skill pdf".
	Matches []string `json:"matches"`
}

// Rank applies the Universal spec's deterministic selection (§10) to
// cands and returns every candidate, selected ones first:
//
//  1. A skill is selected when Text names it or one of its tools (manual
//     override): the name appears as a whole word, case-insensitively.
//  2. Each skill scores +3 per when_to_use.file_types entry that ends a
//     path in Files or a word of Text, +2 per mentions entry that appears
//     in Text as a whole word or phrase (or its plural in "s"), +1 per intents entry in Intents;
//     all case-insensitive, each entry counted once.
//  3. Skills scoring at least the threshold (default 3) are selected.
//  4. Order: named skills first, then higher score, higher
//     when_to_use.priority, and name in lexical order.
func Rank(cands []Candidate, q Query) []Scored {
	th := q.Threshold
	if th == 0 {
		th = DefaultThreshold
	}
	text := strings.ToLower(q.Text)
	words := textWords(text)
	out := make([]Scored, 0, len(cands))
	for _, c := range cands {
		s := Scored{Name: c.Name, Matches: []string{}}
		if containsWord(text, strings.ToLower(c.Name), false) {
			s.Named = true
			s.Matches = append(s.Matches, "named skill "+c.Name)
		}
		for _, t := range c.Tools {
			if t != "" && containsWord(text, strings.ToLower(t), false) {
				s.Named = true
				s.Matches = append(s.Matches, "named tool "+t)
			}
		}
		if w := c.WhenToUse; w != nil {
			s.Priority = w.Priority
			for _, ft := range uniqueFold(w.FileTypes) {
				if fileTypeMatches(ft, q.Files, words) {
					s.Score += ScoreFileType
					s.Matches = append(s.Matches, "file_type "+ft+" +3")
				}
			}
			for _, m := range uniqueFold(w.Mentions) {
				if containsWord(text, strings.ToLower(m), true) {
					s.Score += ScoreMention
					s.Matches = append(s.Matches, "mention "+m+" +2")
				}
			}
			for _, in := range uniqueFold(w.Intents) {
				if slices.ContainsFunc(q.Intents, func(x string) bool { return strings.EqualFold(x, in) }) {
					s.Score += ScoreIntent
					s.Matches = append(s.Matches, "intent "+in+" +1")
				}
			}
		}
		s.Selected = s.Named || (q.Threshold < 0) || s.Score >= th
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Scored) int {
		if a.Selected != b.Selected {
			return boolOrder(a.Selected, b.Selected)
		}
		if a.Named != b.Named {
			return boolOrder(a.Named, b.Named)
		}
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(b.Priority, a.Priority), strings.Compare(a.Name, b.Name))
	})
	return out
}

// Select returns the selected skills of Rank, best first.
func Select(cands []Candidate, q Query) []Scored {
	all := Rank(cands, q)
	n := slices.IndexFunc(all, func(s Scored) bool { return !s.Selected })
	if n < 0 {
		n = len(all)
	}
	return all[:n]
}

func boolOrder(a, b bool) int {
	if a && !b {
		return -1
	}
	return 1
}

// uniqueFold drops empty entries and case-insensitive repeats, keeping
// the first spelling.
func uniqueFold(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		k := strings.ToLower(strings.TrimSpace(s))
		if k == "" || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// isWordByte reports whether b can be part of a name or word: a match must
// not be preceded or followed by one.
func isWordByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' || b == '-' || b >= 0x80
}

// containsWord reports whether phrase occurs in text (both lower case) not
// inside a longer word; with plural, a trailing "s" is allowed.
func containsWord(text, phrase string, plural bool) bool {
	phrase = strings.TrimSpace(phrase)
	if phrase == "" {
		return false
	}
	for off := 0; ; {
		i := strings.Index(text[off:], phrase)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(phrase)
		before := start == 0 || !isWordByte(text[start-1]) || !isWordByte(phrase[0])
		after := end == len(text) || !isWordByte(text[end]) || !isWordByte(phrase[len(phrase)-1])
		if !after && plural && text[end] == 's' && (end+1 == len(text) || !isWordByte(text[end+1])) {
			after = true // "pdfs" mentions pdf
		}
		if before && after {
			return true
		}
		off = start + 1
	}
}

var fileWordRE = lazyre.New(`[^\s"'<>()\[\]{},;]+`)

// textWords are the whitespace-separated words of text, trimmed of
// sentence punctuation, for file type matches.
func textWords(text string) []string {
	ws := fileWordRE().FindAllString(text, -1)
	for i, w := range ws {
		ws[i] = strings.TrimRight(w, ".:!?")
	}
	return ws
}

// fileTypeMatches reports whether ft (".pdf" or "pdf") ends one of files
// or one of words, case-insensitively. A bare word equal to the extension
// ("pdf") does not count: that is a mention.
func fileTypeMatches(ft string, files, words []string) bool {
	ext := strings.ToLower(ft)
	if !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	if ext == "." {
		return false
	}
	match := func(p string) bool {
		p = strings.ToLower(strings.ReplaceAll(p, `\`, "/"))
		base := path.Base(p)
		return len(base) > len(ext) && strings.HasSuffix(base, ext)
	}
	return slices.ContainsFunc(files, match) || slices.ContainsFunc(words, match)
}
