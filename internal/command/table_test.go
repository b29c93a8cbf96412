package command

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWriteColumnsIsTable checks that writeColumns lays rows out byte for
// byte as the tabwriter table does, for cells of every width, empty ones
// and multi-byte runes included.
func TestWriteColumnsIsTable(t *testing.T) {
	alphabet := []string{"a", "Z", "-", ".", "é", "世", "😀", " ", "~"}
	r := rand.New(rand.NewPCG(1, 2))
	cell := func() string {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for _, tc := range []struct{ rows, cols int }{{1, 5}, {2, 2}, {7, 5}, {40, 3}, {300, 5}} {
		for trial := range 20 {
			var cells []string
			for range tc.rows * tc.cols {
				cells = append(cells, cell())
			}
			var want, got bytes.Buffer
			tw := NewTable(&want, 0, 4, 2)
			for i := 0; i < len(cells); i += tc.cols {
				fmt.Fprintln(tw, strings.Join(cells[i:i+tc.cols], "\t"))
			}
			if err := tw.Flush(); err != nil {
				t.Fatal(err)
			}
			if err := writeColumns(&got, tc.cols, cells); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Fatalf("%d rows of %d, trial %d:\ngot\n%q\nwant\n%q", tc.rows, tc.cols, trial, got.String(), want.String())
			}
		}
	}
}

// TestWriteColumnsOfTermLines checks writeColumns against the table for
// what list gives it: TermLine cells, from text holding every byte
// tabwriter treats specially (tab, newline, vertical tab, form feed,
// 0xff, and '<' and '&', filtered only under FilterHTML), other
// controls, combining marks and wide runes.
func TestWriteColumnsOfTermLines(t *testing.T) {
	alphabet := []string{"a", "\t", "\n", "\v", "\f", "\r", "\xff", "\xe4", "\x1b", "\x7f", "<", "&", ";",
		"e\u0301", "\u0301", "世", "\uff21", "\u202e", "\u0085", " "}
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 200 {
		const cols = 5
		rows := 1 + r.IntN(8)
		cells := make([]string, 0, rows*cols)
		for range rows * cols {
			var b strings.Builder
			for range r.IntN(8) {
				b.WriteString(alphabet[r.IntN(len(alphabet))])
			}
			cells = append(cells, TermLine(b.String()))
		}
		var want, got bytes.Buffer
		tw := NewTable(&want, 0, 4, 2)
		for i := 0; i < len(cells); i += cols {
			fmt.Fprintln(tw, strings.Join(cells[i:i+cols], "\t"))
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := writeColumns(&got, cols, cells); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("trial %d:\ngot\n%q\nwant\n%q", trial, got.String(), want.String())
		}
	}
}
