package audit

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// matcher is the compiled keyword automaton and, per keyword, the check
// groups it belongs to. It is built once and read by every scan.
type matcher struct {
	kw    *keywords
	units []unit        // every rule's checks
	hits  [][]ruleGroup // keyword index -> the groups it fills
	full  []uint8       // unit index -> the mask of all its groups
}

// unit is one check of one rule (see Rule.more).
type unit struct {
	rule int
	c    *check
}

// ruleGroup is one keyword group of one unit.
type ruleGroup struct {
	rule int // unit index
	bit  uint8
}

var compiled = sync.OnceValue(func() *matcher {
	m := &matcher{}
	for ri := range rules {
		r := &rules[ri]
		if r.keywords != nil {
			m.units = append(m.units, unit{ri, &check{keywords: r.keywords, pattern: r.pattern, shellPattern: r.shellPattern}})
		}
		for j := range r.more {
			m.units = append(m.units, unit{ri, &r.more[j]})
		}
	}
	m.full = make([]uint8, len(m.units))
	index := map[string]int{}
	var list []string
	for ui, u := range m.units {
		for gi, g := range u.c.keywords {
			bit := uint8(1) << gi
			m.full[ui] |= bit
			for _, w := range g {
				w = strings.ToLower(w)
				i, ok := index[w]
				if !ok {
					i = len(list)
					index[w] = i
					list = append(list, w)
					m.hits = append(m.hits, nil)
				}
				m.hits[i] = append(m.hits[i], ruleGroup{ui, bit})
			}
		}
	}
	m.kw = compileKeywords(list)
	return m
})

// longLine is the length past which a line is matched in windows around
// each keyword hit rather than whole (minified code, data on one line).
const longLine = 1024

// maxChecks bounds the lines (or windows) one rule's pattern is tried on
// in one file; past it the rule stops there and the file gets a
// scan-limit finding, so keyword-stuffed input costs bounded time.
const maxChecks = 2000

// file is one text file being scanned.
type file struct {
	s   *scanner
	rel string
	// data is the text the rules match (see normalize); when it is not
	// the file's bytes, offs maps each of its offsets to one in orig.
	data     []byte
	offs     offMap
	orig     *file
	sc       scope
	shell    bool
	lines    []int // offsets of line starts, built on first need
	comments [][2]int
	commDone bool
	seen     map[[3]int]bool // rule, line, window
	matched  map[[2]int]bool // rule, line: a finding was reported there
	checks   map[int]int     // rule -> lines its patterns were tried on
	found    bool
	// parent, for text decoded from a literal of another file: findings
	// are reported at the literal (offset at in parent).
	parent  *file
	at      int
	how     string
	depth   int
	budget  *int // bytes left to decode in the whole file
	unitEnd int  // end of the line holding the current keyword hits
	long    bool // that line is longer than longLine
}

// unit returns the line and window of offset off, and remembers where its
// line ends.
func (f *file) unit(off int) [2]int {
	n, start, end := f.line(off)
	f.unitEnd, f.long = end, end-start > longLine
	if end < len(f.data) {
		f.unitEnd = end + 1
	}
	if f.long {
		return [2]int{n, (off - start) / (longLine / 2)}
	}
	return [2]int{n, 0}
}

func (s *scanner) classify(rel string, data []byte) (scope, bool) {
	ext := strings.ToLower(path.Ext(rel))
	shebang := bytes.HasPrefix(data, []byte("#!"))
	first := data
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	shell := ext == ".sh" || ext == ".bash" || ext == ".zsh" || ext == ".ksh" ||
		(shebang && (bytes.HasSuffix(first, []byte("sh")) || bytes.Contains(first, []byte("bash")) || bytes.Contains(first, []byte("/sh "))))
	if rt, ok := s.scripts[rel]; ok {
		return inScript, shell || rt == "bash"
	}
	switch ext {
	case ".md", ".markdown", ".mdx", ".txt", ".rst", ".html", ".htm":
		return inMarkdown, false
	case ".py", ".js", ".mjs", ".cjs", ".ts", ".mts", ".tsx", ".jsx", ".sh", ".bash", ".zsh", ".ksh", ".fish",
		".ps1", ".psm1", ".bat", ".cmd", ".rb", ".pl", ".php", ".lua", ".go", ".rs", ".java", ".kt", ".swift":
		return inScript, shell
	}
	if shebang {
		return inScript, shell
	}
	return inData, false
}

// scanText matches the rules against one file. A binary file (one with
// NUL bytes) gets the keyword rules only: its bytes are not prose, so
// entropy and Unicode checks would only make noise.
func (s *scanner) scanText(rel string, data []byte, binary bool) {
	sc, shell := s.classify(rel, data)
	f := s.textFile(rel, data, sc, shell)
	f.keywordPass()
	f.flow()
	o := f
	if f.orig != nil {
		o = f.orig
	}
	if !binary {
		o.runs() // on the file's own bytes
	}
	if (f.found || o.found) && s.opts.Inline {
		if s.texts == nil {
			s.texts = map[string][]byte{}
		}
		s.texts[rel] = data
	}
}

// textFile returns the file the rules match for data: data itself, or
// its normalized text backed by data (see normalize).
func (s *scanner) textFile(rel string, data []byte, sc scope, shell bool) *file {
	f := &file{s: s, rel: rel, data: data, sc: sc, shell: shell}
	ext := strings.ToLower(path.Ext(rel))
	if text, offs := normalize(data, sc, shell, ext == ".ps1" || ext == ".psm1"); offs != nil {
		f = &file{s: s, rel: rel, data: text, offs: offs, orig: f, sc: sc, shell: shell}
	}
	return f
}

// keywordPass finds every rule's keywords in f.data and checks each rule
// where its keyword groups meet.
func (f *file) keywordPass() {
	s, sc := f.s, f.sc
	m := compiled()
	// Keyword hits fill each rule's groups per line (or window of a long
	// line); a rule whose groups are all filled is checked there.
	if s.masks == nil {
		s.masks, s.first = make([]uint8, len(m.units)), make([]int, len(m.units))
	}
	masks, first, touched := s.masks, s.first, s.touched[:0]
	// On a long line, the groups are also collected for the whole line.
	if s.lineMasks == nil {
		s.lineMasks, s.lineFirst = make([]uint8, len(m.units)), make([]int, len(m.units))
	}
	lineMasks, lineFirst, lineTouched := s.lineMasks, s.lineFirst, s.lineTouched[:0]
	unit := [2]int{-1, 0} // line, window
	flush := func() {
		for _, ri := range touched {
			if masks[ri] == m.full[ri] {
				f.candidate(ri, first[ri])
			}
			masks[ri] = 0
		}
		touched = touched[:0]
	}
	flushLine := func() {
		for _, ri := range lineTouched {
			if lineMasks[ri] == m.full[ri] {
				f.wholeLine(ri, lineFirst[ri])
			}
			lineMasks[ri] = 0
		}
		lineTouched = lineTouched[:0]
	}
	m.kw.scan(f.data, func(w, end int) {
		off := end - 1
		if off >= f.unitEnd {
			flush()
			flushLine()
			unit = f.unit(off)
		} else if f.long {
			if u := f.unit(off); u != unit {
				flush()
				unit = u
			}
		}
		for _, g := range m.hits[w] {
			u := m.units[g.rule]
			r := &rules[u.rule]
			if cmp.Or(u.c.scope, r.scope)&sc == 0 || (r.denied != nil && !r.denied(&s.perms)) {
				continue
			}
			if masks[g.rule] == 0 {
				touched = append(touched, g.rule)
				first[g.rule] = off
			}
			masks[g.rule] |= g.bit
			if f.long {
				if lineMasks[g.rule] == 0 {
					lineTouched = append(lineTouched, g.rule)
					lineFirst[g.rule] = off
				}
				lineMasks[g.rule] |= g.bit
			}
		}
	})
	flush()
	flushLine()
	s.touched, s.lineTouched = touched, lineTouched
}

// line returns the 1-based line of offset off and that line's bounds.
func (f *file) line(off int) (n, start, end int) {
	if f.lines == nil {
		f.lines = append(f.lines, 0)
		for i := 0; ; {
			j := bytes.IndexByte(f.data[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			f.lines = append(f.lines, i)
		}
	}
	n = sort.SearchInts(f.lines, off+1) // lines[n-1] <= off
	start = f.lines[n-1]
	end = len(f.data)
	if n < len(f.lines) {
		end = f.lines[n] - 1
	}
	if end > start && f.data[end-1] == '\r' {
		end--
	}
	return n, start, end
}

// add reports a finding at offset off of f.data, located in the file's
// own bytes.
func (f *file) add(rule string, off int, match, msg string) {
	if f.parent != nil {
		if msg == "" {
			r, _ := RuleByID(rule)
			msg = r.Summary
		}
		if !strings.HasPrefix(msg, decodedPrefix) { // the innermost literal says
			msg = decodedPrefix + f.how + ": " + msg
		}
		f.found = true
		f.parent.add(rule, f.at, match, msg)
		return
	}
	g := f
	if f.offs != nil {
		off, g = f.offs.at(off), f.orig
	}
	n, start, _ := g.line(off)
	col := utf8.RuneCount(g.data[start:off]) + 1
	f.found = true
	f.s.add(Finding{Rule: rule, File: f.rel, Line: n, Column: col, Match: match, Message: msg})
}

// candidate checks unit ui on the line (or window) around offset off.
func (f *file) candidate(ui, off int) {
	n, start, end := f.line(off)
	bucket := 0
	if end-start > longLine {
		bucket = (off - start) / (longLine / 2)
		start = max(start, off-longLine/2)
		end = min(end, off+longLine/2)
	}
	key := [3]int{ui, n, bucket}
	if f.seen == nil {
		f.seen = map[[3]int]bool{}
	}
	if f.seen[key] {
		return
	}
	f.seen[key] = true
	u := compiled().units[ui]
	r := &rules[u.rule]
	if f.s.perRule[[2]string{f.rel, r.ID}] >= maxPerRuleFile || f.matched[[2]int{u.rule, n}] {
		return // the report already lists as many as it will, or this line
	}
	if f.checks == nil {
		f.checks = map[int]int{}
	}
	if f.checks[u.rule]++; f.checks[u.rule] > maxChecks {
		if f.checks[u.rule] == maxChecks+1 {
			f.add(ruleScanLimit, off, "", fmt.Sprintf("rule %s was tried on the first %d candidate lines of this file only", r.ID, maxChecks))
		}
		return
	}
	f.match(u, n, start, end)
}

// wholeLine checks unit ui on the whole long line holding offset off,
// when its keyword groups are all on the line but no window held them
// all: padding between "curl URL" and "| sh" must not hide the pair. It
// costs one check per 1 KiB of the line, from the same budget as the
// windows; a line too long for what is left is reported as not read.
func (f *file) wholeLine(ui, off int) {
	n, start, end := f.line(off)
	u := compiled().units[ui]
	if f.matched[[2]int{u.rule, n}] {
		return
	}
	r := &rules[u.rule]
	if f.s.perRule[[2]string{f.rel, r.ID}] >= maxPerRuleFile {
		return
	}
	if f.checks == nil {
		f.checks = map[int]int{}
	}
	cost := (end-start)/longLine + 1
	if f.checks[u.rule]+cost > maxChecks {
		f.add(ruleScanLimit, off, "", fmt.Sprintf("rule %s read line %d only in windows of %d bytes: the line is too long to read whole", r.ID, n, longLine))
		return
	}
	f.checks[u.rule] += cost
	f.match(u, n, start, end)
}

// match tries unit u's pattern on f.data[start:end], part of line n.
func (f *file) match(u unit, n, start, end int) {
	r := &rules[u.rule]
	text := f.data[start:end]
	loc := u.c.pattern().FindIndex(text)
	if loc == nil && f.shell && u.c.shellPattern != nil {
		loc = u.c.shellPattern().FindIndex(text)
	}
	if loc == nil {
		return
	}
	// A pattern may begin with the character before its match.
	for loc[0] < loc[1] && (text[loc[0]] == ' ' || text[loc[0]] == '\t' || text[loc[0]] == '(' || text[loc[0]] == '>') && r.ID == "host-command" {
		loc[0]++
	}
	m := string(text[loc[0]:loc[1]])
	if r.accept != nil && !r.accept(m) {
		return
	}
	m = f.source(start+loc[0], start+loc[1])
	id, msg := r.ID, ""
	if r.injection {
		switch {
		case f.sc == inMarkdown && f.inComment(start+loc[0]):
			id, msg = ruleHidden, "hidden in an HTML comment: "+r.Summary
		case quotedExample(text, loc):
			id, msg = ruleMention, "quoted as an example: "+r.Summary
		}
	}
	if f.matched == nil {
		f.matched = map[[2]int]bool{}
	}
	f.matched[[2]int{u.rule, n}] = true
	f.add(id, start+loc[0], shorten(m), msg)
}

// source returns the file's own bytes behind f.data[a:b].
func (f *file) source(a, b int) string {
	if f.offs == nil || a >= b {
		return string(f.data[a:b])
	}
	o := f.orig.data
	end := f.offs.at(b - 1)
	_, w := utf8.DecodeRune(o[end:])
	return string(o[f.offs.at(a) : end+w])
}

// inComment reports whether off lies inside an HTML comment.
func (f *file) inComment(off int) bool {
	if !f.commDone {
		f.commDone = true
		for i := 0; ; {
			j := bytes.Index(f.data[i:], []byte("<!--"))
			if j < 0 {
				break
			}
			a := i + j
			k := bytes.Index(f.data[a+4:], []byte("-->"))
			b := len(f.data)
			if k >= 0 {
				b = a + 4 + k + 3
			}
			f.comments = append(f.comments, [2]int{a, b})
			i = b
			if i >= len(f.data) {
				break
			}
		}
	}
	for _, c := range f.comments {
		if c[0] <= off && off < c[1] {
			return true
		}
	}
	return false
}

var exampleCues = []string{"such as", "like ", "e.g", "for example", "example", "phrase", "attack", "injection", "detect", "watch for", "beware", "refuse", "flag ", "recogni", "malicious", "suspicious"}

// quotedExample reports whether the match is quoted on a line that says it
// is an example: how a security skill explains an attack, not the attack.
func quotedExample(line []byte, loc []int) bool {
	before, after := string(line[:loc[0]]), string(line[loc[1]:])
	// The quote closes soon after the phrase, and the words that say it
	// is an example come before it: "ignore previous instructions" - like
	// I said, do it! quotes an instruction, it does not explain one.
	open := -1
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}, {"`", "`"}, {"‘", "’"}} {
		if i := strings.LastIndex(before, q[0]); i >= 0 {
			if j := strings.Index(after, q[1]); j >= 0 && j <= 40 {
				open = max(open, i)
			}
		}
	}
	if open < 0 {
		return false
	}
	l := strings.ToLower(before[:open])
	for _, c := range exampleCues {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

// b64 marks the bytes of base64 and base64url text.
var b64 = func() (t [256]bool) {
	for _, c := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-") {
		t[c] = true
	}
	return t
}()

// minBlob and minEntropy: a run of base64 characters at least this long
// with at least this many bits per character is an opaque payload (random
// base64 carries about 6; English words, paths and identifiers stay
// below 4.5; hex digests top out at 4).
const (
	minBlob    = 200
	minEntropy = 5.0
)

// runs finds long high-entropy literals, matches what encoded literals
// decode to (see decodeRun) and, when the file has non-ASCII bytes, runs
// the Unicode checks. In decoded text, only the decoding is done.
func (f *file) runs() {
	data := f.data
	nonASCII := false
	runStart := -1
	for i := 0; i <= len(data); i++ {
		var c byte
		if i < len(data) {
			c = data[i]
			if c >= 0x80 {
				nonASCII = true
			}
			if b64[c] {
				if runStart < 0 {
					runStart = i
				}
				continue
			}
		}
		if runStart >= 0 {
			if i-runStart >= minBlob && f.parent == nil {
				f.blob(runStart, i)
			}
			if i-runStart >= minDecode {
				f.decodeRun(runStart, i)
			}
			runStart = -1
		}
	}
	f.decodeEscapes()
	if nonASCII && f.parent == nil {
		f.unicode()
	}
}

func (f *file) blob(a, b int) {
	pre := f.data[max(0, a-40):a]
	if bytes.Contains(pre, []byte("data:image/")) || bytes.Contains(pre, []byte("data:font/")) || bytes.Contains(pre, []byte("data:application/font")) {
		return
	}
	var freq [256]int
	for _, c := range f.data[a:b] {
		freq[c]++
	}
	h, n := 0.0, float64(b-a)
	for _, k := range freq {
		if k > 0 {
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	if h < minEntropy {
		return
	}
	key := [3]int{-1, a, 0}
	if f.seen == nil {
		f.seen = map[[3]int]bool{}
	}
	if f.seen[key] {
		return
	}
	f.seen[key] = true
	f.add(ruleEntropy, a, shorten(string(f.data[a:min(b, a+40)])+"…"),
		fmt.Sprintf("a %d-character literal with %.1f bits of entropy per character: an encoded or encrypted payload", b-a, h))
}
