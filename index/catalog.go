package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"iter"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// BucketCatalog holds the search catalog: what 'skillpm index refresh'
// learnt of every skill repository of the configured registries.
//
//	catalog   repository -> JSON [Entry]
//	          "\x00lines" -> every entry as one search line (see below)
//
// The lines value is what search scans: one entry per line, fields
// separated by tabs, so a query over 10,000 skills is one read and a scan
// of a few megabytes, not 10,000 JSON decodes.
var BucketCatalog = []byte("catalog")

var (
	keyLines = []byte("\x00lines")
	keyLower = []byte("\x00lower") // keyLines with ASCII letters lowered
)

// Entry is one skill repository in the search catalog: its newest version
// and what its config blob says.
type Entry struct {
	Repository  string    `json:"repository"`
	Name        string    `json:"name"`
	Version     string    `json:"version"`
	Description string    `json:"description,omitempty"`
	Tags        []string  `json:"tags,omitempty"`
	Tools       []string  `json:"tools,omitempty"`
	License     string    `json:"license,omitempty"`
	IndexedAt   time.Time `json:"indexedAt,omitzero"`
}

// line renders e for the lines value; tabs and newlines in fields become
// spaces.
func (e Entry) line() string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return ' '
			}
			return r
		}, s)
	}
	return strings.Join([]string{clean(e.Name), clean(e.Version), clean(e.Repository), clean(e.Description),
		clean(strings.Join(e.Tags, " ")), clean(strings.Join(e.Tools, " ")), clean(e.License)}, "\t")
}

func parseLine(l string) (Entry, bool) {
	f := strings.Split(l, "\t")
	if len(f) != 7 {
		return Entry{}, false
	}
	e := Entry{Name: f[0], Version: f[1], Repository: f[2], Description: f[3], License: f[6]}
	if f[4] != "" {
		e.Tags = strings.Split(f[4], " ")
	}
	if f[5] != "" {
		e.Tools = strings.Split(f[5], " ")
	}
	return e, true
}

// PutCatalog records entries (replacing those of the same repositories)
// and rebuilds the search lines. prune lists repository prefixes whose
// other entries are dropped: the repositories that were fully listed.
func PutCatalog(path string, entries []Entry, prune []string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	db, err := openDB(path, false, timeout)
	if errors.Is(err, ErrCorrupt) {
		if err = removeFile(path); err == nil {
			db, err = openDB(path, false, timeout)
		}
	}
	if err != nil {
		return err
	}
	defer db.Close()
	return update(db, func(tx *bolt.Tx) error {
		if err := prepare(tx); err != nil {
			return err
		}
		b, err := tx.CreateBucketIfNotExists(BucketCatalog)
		if err != nil {
			return err
		}
		fresh := map[string]bool{}
		for _, e := range entries {
			v, err := json.Marshal(e)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(e.Repository), v); err != nil {
				return err
			}
			fresh[e.Repository] = true
		}
		var stale [][]byte
		var lines []string
		err = b.ForEach(func(k, v []byte) error {
			if bytes.Equal(k, keyLines) || bytes.Equal(k, keyLower) {
				return nil
			}
			repo := string(k)
			for _, p := range prune {
				if strings.HasPrefix(repo, strings.TrimRight(p, "/")+"/") && !fresh[repo] {
					stale = append(stale, append([]byte(nil), k...))
					return nil
				}
			}
			var e Entry
			if json.Unmarshal(v, &e) == nil {
				lines = append(lines, e.line())
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, k := range stale {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		sort.Strings(lines)
		all := strings.Join(lines, "\n")
		if err := b.Put(keyLines, []byte(all)); err != nil {
			return err
		}
		return b.Put(keyLower, []byte(asciiLower(all)))
	})
}

// Hit is one search result.
type Hit struct {
	Entry
	Score int `json:"score"`
}

// Search ranks the catalog's skills against query: every word of the query
// must match the name, description, tags or tool names of a skill. A name
// match ranks above a tool or tag match, which ranks above a description
// match. limit <= 0 means no limit. A missing index returns no hits and
// fs.ErrNotExist.
func Search(path, query string, limit int) ([]Hit, error) {
	db, err := openDB(path, true, DefaultTimeout)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	terms := strings.Fields(asciiLower(query))
	var hits []Hit
	found := false
	// The scan runs inside the read transaction, on the mapped pages.
	err = view(db, func(tx *bolt.Tx) error {
		b := tx.Bucket(BucketCatalog)
		if b == nil {
			return nil
		}
		data, lower := b.Get(keyLines), b.Get(keyLower)
		if data == nil || len(lower) != len(data) {
			return nil
		}
		found = true
		if len(terms) > 0 {
			hits = top(data, scan(lower, terms), limit)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, fs.ErrNotExist
	}
	return hits, nil
}

// candidate is a matching line of the catalog.
type candidate struct {
	score      int
	start, end int // the line's bytes
}

// scan finds the lines holding one term with one fast search of the
// lowered copy, then checks the other terms and scores the line. It
// allocates only the candidates: a query matching all 10,000 skills must
// not cost 10,000 splits.
func scan(lower []byte, terms []string) []candidate {
	bterms := make([][]byte, len(terms))
	for i, t := range terms {
		bterms[i] = []byte(t)
	}
	// The longest term is likely the rarest: look for it first, so that
	// "pdf topic-42" visits the lines of topic-42, not every PDF skill.
	ai := 0
	for i, t := range bterms {
		if len(t) > len(bterms[ai]) {
			ai = i
		}
	}
	anchor := bterms[ai]
	var out []candidate
	for off := 0; off < len(lower); {
		at := indexRare(lower, off, anchor)
		if at < 0 {
			break
		}
		// off starts a line. When at is near it (matches on most lines),
		// find the start of at's line forward with the vectorised
		// IndexByte; else backward, byte by byte, over one line at most.
		start := off
		if at-off <= 512 {
			for {
				j := bytes.IndexByte(lower[start:at], '\n')
				if j < 0 {
					break
				}
				start += j + 1
			}
		} else {
			start += bytes.LastIndexByte(lower[off:at], '\n') + 1
		}
		end := bytes.IndexByte(lower[at:], '\n')
		if end < 0 {
			end = len(lower)
		} else {
			end += at
		}
		off = end + 1
		ll := lower[start:end]
		ok := true
		for i, t := range bterms {
			if i != ai && !bytes.Contains(ll, t) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		f, ok := splitLine(ll)
		if !ok {
			continue
		}
		if sc := score(&f, bterms); sc > 0 {
			out = append(out, candidate{sc, start, end})
		}
	}
	return out
}

// indexRare returns the index of the first match of term in text at or
// after off, or -1. It looks for the term's rarest byte with IndexByte
// (vectorised) and checks the term around each hit: bytes.Index keys on
// the first byte, and the first byte of "skill-0042" is on every line.
func indexRare(text []byte, off int, term []byte) int {
	if len(term) == 0 {
		return -1
	}
	r := 0
	for i := range term {
		if byteRank[term[i]] < byteRank[term[r]] {
			r = i
		}
	}
	c := term[r]
	for pos := off + r; pos < len(text); {
		i := bytes.IndexByte(text[pos:], c)
		if i < 0 {
			return -1
		}
		at := pos + i - r
		if bytes.HasPrefix(text[at:], term) {
			return at
		}
		pos += i + 1
	}
	return -1
}

// byteRank orders bytes by how common they are in skill names and
// descriptions, most common highest: lowercase letters in English
// frequency order, then space, digits and the separators of names. Bytes
// not listed (rank 0) count as rarest.
var byteRank = func() (r [256]uint8) {
	for i, c := range []byte("zqxjkvbpygfwmucldrhsnioate") { // rarest first
		r[c] = uint8(40 + i)
	}
	for _, c := range []byte("0123456789") {
		r[c] = 45 // about as common as 'k' or 'v'
	}
	r['-'], r['_'], r['.'], r['/'] = 50, 44, 44, 48
	r[' '], r['\t'] = 90, 80
	return r
}()

// fieldCount is the number of tab-separated fields of a search line.
const fieldCount = 7

// splitLine slices a search line into its fields without copying.
func splitLine(l []byte) (f [fieldCount][]byte, ok bool) {
	for i := range fieldCount - 1 {
		j := bytes.IndexByte(l, '\t')
		if j < 0 {
			return f, false
		}
		f[i], l = l[:j], l[j+1:]
	}
	if bytes.IndexByte(l, '\t') >= 0 {
		return f, false
	}
	f[fieldCount-1] = l
	return f, true
}

// top orders candidates by score, then name (the lines are sorted by
// name already), and decodes the best limit of them.
func top(data []byte, cs []candidate, limit int) []Hit {
	slices.SortStableFunc(cs, func(a, b candidate) int { return b.score - a.score })
	if limit > 0 && len(cs) > limit {
		cs = cs[:limit]
	}
	hits := make([]Hit, 0, len(cs))
	for _, c := range cs {
		if e, ok := parseLine(string(data[c.start:c.end])); ok {
			hits = append(hits, Hit{Entry: e, Score: c.score})
		}
	}
	return hits
}

// score is 0 unless every term matches a searchable field (the repository
// path alone does not count). f holds a line's lowered fields.
func score(f *[fieldCount][]byte, terms [][]byte) int {
	name, desc, tags, tools := f[0], f[3], f[4], f[5]
	total := 0
	for _, t := range terms {
		s := 0
		switch {
		case bytes.Equal(name, t):
			s = 100
		case bytes.HasPrefix(name, t):
			s = 60
		case bytes.Contains(name, t):
			s = 40
		}
		for tool := range words(tools) {
			if bytes.Equal(tool, t) {
				s = max(s, 30)
			} else if bytes.Contains(tool, t) {
				s = max(s, 20)
			}
		}
		for tag := range words(tags) {
			if bytes.Equal(tag, t) {
				s = max(s, 25)
			}
		}
		if s == 0 {
			if i := bytes.Index(desc, t); i >= 0 {
				s = 10
				if wordAt(desc, i, len(t)) {
					s = 15
				}
			}
		}
		if s == 0 {
			return 0
		}
		total += s
	}
	return total
}

// words yields the space-separated words of b, skipping empty ones.
func words(b []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for len(b) > 0 {
			w, rest, _ := bytes.Cut(b, []byte{' '})
			if len(w) > 0 && !yield(w) {
				return
			}
			b = rest
		}
	}
}

// wordAt reports whether text[i:i+n] is a whole word.
func wordAt(text []byte, i, n int) bool {
	isWord := func(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '_' }
	return (i == 0 || !isWord(text[i-1])) && (i+n == len(text) || !isWord(text[i+n]))
}

// asciiLower lowers ASCII letters only, keeping byte offsets unchanged.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, s)
}

// removeFile deletes a corrupt index so that it can be started again.
func removeFile(path string) error {
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
