package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func catalogFixture(t testing.TB) string {
	path := filepath.Join(t.TempDir(), FileName)
	entries := []Entry{
		{Repository: "reg/skills/pdf-tools", Name: "pdf-tools", Version: "1.2.0", Description: "Extract text\tfrom PDF files.", Tools: []string{"extract-text"}},
		{Repository: "reg/skills/release-notes", Name: "release-notes", Version: "2.0.0", Description: "Draft release notes from commits.", Tags: []string{"git", "docs"}},
		{Repository: "reg/skills/slugify", Name: "slugify", Version: "1.0.3", Description: "Turn titles into slugs for PDF anchors.", Tools: []string{"slugify"}},
		{Repository: "reg/skills/notes", Name: "notes", Version: "0.1.0", Description: "Keep notes."},
	}
	if err := PutCatalog(path, entries, nil, 0); err != nil {
		t.Fatal(err)
	}
	return path
}

func names(hits []Hit) string {
	var s []string
	for _, h := range hits {
		s = append(s, h.Name)
	}
	return strings.Join(s, " ")
}

func TestSearchRanks(t *testing.T) {
	path := catalogFixture(t)
	for _, tc := range []struct{ query, want string }{
		{"pdf", "pdf-tools slugify"},         // name prefix, then description
		{"notes", "notes release-notes"},     // exact name first
		{"extract-text", "pdf-tools"},        // tool name
		{"git", "release-notes"},             // tag
		{"RELEASE commits", "release-notes"}, // every word, any case
		{"pdf nothing-like-this", ""},        // every word must match
		{"skills", ""},                       // the repository path is not searched
	} {
		hits, err := Search(path, tc.query, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(hits); got != tc.want {
			t.Errorf("Search(%q) = %q; want %q", tc.query, got, tc.want)
		}
	}
	hits, _ := Search(path, "pdf", 1)
	if len(hits) != 1 || hits[0].Description != "Extract text from PDF files." {
		t.Errorf("limit 1 / tab cleaning: %+v", hits)
	}
}

func TestPutCatalogPrunesListedPrefixes(t *testing.T) {
	path := catalogFixture(t)
	err := PutCatalog(path, []Entry{{Repository: "reg/skills/pdf-tools", Name: "pdf-tools", Version: "1.3.0"}}, []string{"reg/skills"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	hits, _ := Search(path, "o", 0)
	if got := names(hits); got != "pdf-tools" {
		t.Errorf("after a full listing of reg/skills: %q; want only pdf-tools", got)
	}
}

func TestSearchEmptyIndex(t *testing.T) {
	if _, err := Search(filepath.Join(t.TempDir(), FileName), "x", 0); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v; want fs.ErrNotExist", err)
	}
}

// BenchmarkSearch10000 searches a catalog of 10,000 skills in-process.
func BenchmarkSearch10000(b *testing.B) {
	for _, query := range []string{"skill-0999 pdfs", "spreadsheets"} {
		b.Run(query, func(b *testing.B) { benchSearch(b, query) })
	}
}

func benchSearch(b *testing.B, query string) {
	path := filepath.Join(b.TempDir(), FileName)
	var entries []Entry
	for i := range 10000 {
		entries = append(entries, Entry{Repository: fmt.Sprintf("reg/skills/skill-%05d", i), Name: fmt.Sprintf("skill-%05d", i),
			Version: "1.0.0", Description: fmt.Sprintf("Skill number %d does things with documents, spreadsheets and PDFs.", i),
			Tools: []string{fmt.Sprintf("tool-%d", i)}, Tags: []string{"docs"}})
	}
	if err := PutCatalog(path, entries, nil, 0); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if hits, err := Search(path, query, 20); err != nil || len(hits) == 0 {
			b.Fatalf("hits %d, err %v", len(hits), err)
		}
	}
}

// TestIndexRare checks indexRare against bytes.Index on random text over
// a small alphabet (so that terms occur often, overlapping and at the
// edges), from every offset.
func TestIndexRare(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const alphabet = "ab-9k \n"
	for range 2000 {
		text := make([]byte, rng.IntN(60))
		for i := range text {
			text[i] = alphabet[rng.IntN(len(alphabet))]
		}
		term := make([]byte, 1+rng.IntN(4))
		for i := range term {
			term[i] = alphabet[rng.IntN(len(alphabet))]
		}
		for off := 0; off <= len(text); off++ {
			want := bytes.Index(text[off:], term)
			if want >= 0 {
				want += off
			}
			if got := indexRare(text, off, term); got != want {
				t.Fatalf("indexRare(%q, %d, %q) = %d; want %d", text, off, term, got, want)
			}
		}
	}
}

// TestScanMatchesNaive checks scan against scoring every line, on random
// catalogs whose lines are short and long, and terms common and rare.
func TestScanMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	words := []string{"pdf", "notes", "skill-1", "skill-12", "a", "docs", "tool", strings.Repeat("long", 80)}
	pick := func(n int) string {
		var ws []string
		for range n {
			ws = append(ws, words[rng.IntN(len(words))])
		}
		return strings.Join(ws, " ")
	}
	for range 300 {
		var lines []string
		for range rng.IntN(40) {
			lines = append(lines, strings.Join([]string{pick(1), "1.0.0", "reg/" + pick(1), pick(rng.IntN(30)), pick(2), pick(2), "MIT"}, "\t"))
		}
		lower := []byte(asciiLower(strings.Join(lines, "\n")))
		terms := strings.Fields(pick(1 + rng.IntN(2)))
		var want []candidate
		bterms := make([][]byte, len(terms))
		for i, term := range terms {
			bterms[i] = []byte(term)
		}
		off := 0
		for _, l := range strings.Split(string(lower), "\n") {
			if f, ok := splitLine([]byte(l)); ok {
				if sc := score(&f, bterms); sc > 0 {
					want = append(want, candidate{sc, off, off + len(l)})
				}
			}
			off += len(l) + 1
		}
		if got := scan(lower, terms); !slices.Equal(got, want) {
			t.Fatalf("scan(%q) over\n%s\n= %v; want %v", terms, lower, got, want)
		}
	}
}
