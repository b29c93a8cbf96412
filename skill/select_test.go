package skill

import (
	"fmt"
	"strings"
	"testing"
)

// selCands are the skills the selection table runs against.
var selCands = []Candidate{
	{Name: "pdf-processing", Tools: []string{"extract-text"}, WhenToUse: &WhenToUse{
		Mentions: []string{"pdf", "ocr", "scan"}, FileTypes: []string{".pdf"}, Intents: []string{"document_extraction"}}},
	{Name: "spreadsheets", Tools: []string{"read-sheet"}, WhenToUse: &WhenToUse{
		Mentions: []string{"spreadsheet", "csv"}, FileTypes: []string{".xlsx", "csv"}, Priority: 1}},
	{Name: "reports", WhenToUse: &WhenToUse{Mentions: []string{"report", "pdf"}, Priority: 5}},
	{Name: "charts", WhenToUse: &WhenToUse{Mentions: []string{"chart", "report"}, Priority: 5}},
	{Name: "plain"}, // no triggers: only selectable by name
}

// render shows a ranking as "name:score[*]" with * for named skills,
// selected ones only.
func renderSel(ss []Scored) string {
	var parts []string
	for _, s := range ss {
		if !s.Selected {
			continue
		}
		p := fmt.Sprintf("%s:%d", s.Name, s.Score)
		if s.Named {
			p += "*"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

// TestSelectRules pins each rule of the Universal spec's §10 selection.
func TestSelectRules(t *testing.T) {
	tests := []struct {
		rule string
		q    Query
		want string
	}{
		// Step 2: +3 per file_type match.
		{"file type from --file", Query{Files: []string{"in/Scan.PDF"}}, "pdf-processing:3"},
		{"file type from a word of the text", Query{Text: "summarise q3.xlsx please"}, "spreadsheets:3"},
		{"file type without a leading dot in the skill", Query{Files: []string{"data.csv"}}, "spreadsheets:3"},
		{"file type counted once per entry, not per file", Query{Files: []string{"a.pdf", "b.pdf"}}, "pdf-processing:3"},
		{"bare extension word is not a file", Query{Text: "xlsx"}, ""},
		{"windows separators", Query{Files: []string{`C:\docs\a.pdf`}}, "pdf-processing:3"},
		// Step 2: +2 per mention match, case-insensitive.
		{"one mention is below the threshold", Query{Text: "a chart"}, ""},
		{"two mentions reach it", Query{Text: "OCR this Scan"}, "pdf-processing:4"},
		{"mention plural", Query{Text: "two PDFs and a scan"}, "pdf-processing:4"},
		{"mention not inside a longer word", Query{Text: "democracy scanner"}, ""},
		{"mention phrase", Query{Text: "export the spreadsheet as csv"}, "spreadsheets:4"},
		// Step 2: +1 per intent match (host-derived).
		{"intent adds one", Query{Text: "ocr a scan", Intents: []string{"Document_Extraction"}}, "pdf-processing:5"},
		{"intent alone is below the threshold", Query{Intents: []string{"document_extraction"}}, ""},
		// Step 3: threshold.
		{"custom threshold 1", Query{Intents: []string{"document_extraction"}, Threshold: 1}, "pdf-processing:1"},
		{"custom threshold 6", Query{Text: "ocr a scan", Files: []string{"a.pdf"}, Threshold: 6}, "pdf-processing:7"},
		{"negative threshold selects all", Query{Threshold: -1}, "charts:0 reports:0 spreadsheets:0 pdf-processing:0 plain:0"},
		// Step 1: manual override.
		{"naming a skill selects it", Query{Text: "use plain here"}, "plain:0*"},
		{"naming a tool selects its skill", Query{Text: "run extract-text"}, "pdf-processing:0*"},
		{"a name inside a longer word is not a name", Query{Text: "the plainest way"}, ""},
		{"named skills come before higher scores; a.pdf also mentions pdf", Query{Text: "plain: ocr the scan of a.pdf"}, "plain:0* pdf-processing:9"},
		// Step 4: tie-breaks.
		{"higher score first", Query{Text: "a pdf report", Files: []string{"x.pdf"}}, "pdf-processing:5 reports:4"},
		{"equal score: higher priority first", Query{Text: "chart report", Threshold: 2}, "charts:4 reports:2"},
		{"equal score and priority: name order", Query{Text: "the report", Threshold: 2}, "charts:2 reports:2"},
		{"missing priority counts as 0", Query{Text: "pdf csv", Threshold: 2}, "reports:2 spreadsheets:2 pdf-processing:2"},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			got := renderSel(Rank(selCands, tc.q))
			if got != tc.want {
				t.Errorf("Rank(%+v) selected %q; want %q", tc.q, got, tc.want)
			}
		})
	}
}

func TestSelectMatchesExplainScore(t *testing.T) {
	got := Select(selCands, Query{Text: "OCR it", Files: []string{"a.pdf"}, Intents: []string{"document_extraction"}})
	if len(got) != 1 {
		t.Fatalf("Select() = %+v; want pdf-processing only", got)
	}
	want := "file_type .pdf +3,mention ocr +2,intent document_extraction +1"
	if m := strings.Join(got[0].Matches, ","); m != want || got[0].Score != 6 {
		t.Errorf("Matches = %q, score %d; want %q, 6", m, got[0].Score, want)
	}
}

func TestSelectIsDeterministic(t *testing.T) {
	rev := make([]Candidate, len(selCands))
	for i, c := range selCands {
		rev[len(rev)-1-i] = c
	}
	q := Query{Text: "pdf csv chart report", Threshold: 2}
	if a, b := renderSel(Rank(selCands, q)), renderSel(Rank(rev, q)); a != b {
		t.Errorf("order depends on input order: %q vs %q", a, b)
	}
}

// BenchmarkRank1000 scores 1,000 skills with triggers against one request,
// the work of 'skillpm select' and 'prompt --for' beyond reading metadata.
func BenchmarkRank1000(b *testing.B) {
	cands := make([]Candidate, 1000)
	for i := range cands {
		cands[i] = Candidate{Name: fmt.Sprintf("skill-%04d", i), Tools: []string{fmt.Sprintf("tool-%04d", i)},
			WhenToUse: &WhenToUse{Mentions: []string{"pdf", "report", fmt.Sprintf("topic%d", i%50)}, FileTypes: []string{".pdf", ".docx"}, Intents: []string{"summarise"}, Priority: i % 7}}
	}
	q := Query{Text: "Please summarise the quarterly report in q3.pdf and list topic7 items", Files: []string{"in/q3.pdf"}, Intents: []string{"summarise"}}
	b.ReportAllocs()
	for b.Loop() {
		Rank(cands, q)
	}
}
