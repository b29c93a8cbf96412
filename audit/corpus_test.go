package audit

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpus pins the scanner's precision on testdata/corpus: no benign
// case raises anything at medium or above, and every hostile case raises
// the rules testdata/corpus/expect.txt names for it.
func TestCorpus(t *testing.T) {
	f, err := os.Open("testdata/corpus/expect.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, want, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("expect.txt: bad line %q", line)
		}
		cases++
		t.Run(name, func(t *testing.T) {
			rep, err := Scan(context.Background(), filepath.Join("testdata/corpus", name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]bool{}
			for _, f := range rep.Findings {
				if f.Suppressed == nil {
					got[f.Rule] = true
				}
			}
			want = strings.TrimSpace(want)
			if want == "-" {
				for _, f := range rep.AtLeast(Medium) {
					t.Errorf("benign case: %s %s [%s] %s %q", f.Location(), f.Severity, f.Rule, f.Message, f.Match)
				}
				return
			}
			for _, r := range strings.Fields(want) {
				if _, ok := RuleByID(r); !ok {
					t.Fatalf("expect.txt names unknown rule %q", r)
				}
				if !got[r] {
					t.Errorf("hostile case not caught by %s; findings: %v", r, rep.Findings)
				}
			}
		})
	}
	if cases < 40 {
		t.Errorf("the corpus has %d cases; want at least 40", cases)
	}
}
