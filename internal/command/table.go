package command

import (
	"bufio"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// table is a tabwriter whose output is buffered: tabwriter writes every
// cell and every run of padding separately, which to a pipe or terminal
// is a system call each (a list of 1,000 skills made about 10,000).
type table struct {
	*tabwriter.Writer
	buf *bufio.Writer
}

// NewTable returns a table writing to w, with tabwriter's layout settings.
func NewTable(w io.Writer, minwidth, tabwidth, padding int) *table {
	buf := bufio.NewWriterSize(w, 64<<10)
	return &table{Writer: tabwriter.NewWriter(buf, minwidth, tabwidth, padding, ' ', 0), buf: buf}
}

// Flush lays out and writes what the table holds.
func (t *table) Flush() error {
	if err := t.Writer.Flush(); err != nil {
		return err
	}
	return t.buf.Flush()
}

// writeColumns writes cells, row-major in rows of cols, as a table of
// NewTable(w, 0, 4, 2) lays them out when every row has cols cells, the
// last one unpadded: each other column as wide as its widest cell in
// runes, plus two spaces. Cells must hold none of tabwriter's control
// characters (tab, newline, vertical tab, form feed, 0xff), as
// TermLine's output holds none. It keeps a cell's string, not a copy of
// it and a record of its bounds, so a thousand-row listing allocates a
// quarter of what tabwriter does.
func writeColumns(w io.Writer, cols int, cells []string) error {
	widths := make([]int, cols-1)
	for i, c := range cells {
		if col := i % cols; col < cols-1 {
			widths[col] = max(widths[col], utf8.RuneCountInString(c))
		}
	}
	const padding = 2
	spaces := strings.Repeat(" ", slices.Max(append(widths, 0))+padding)
	b := bufio.NewWriterSize(w, 64<<10)
	for i, c := range cells {
		b.WriteString(c)
		if col := i % cols; col < cols-1 {
			b.WriteString(spaces[:widths[col]-utf8.RuneCountInString(c)+padding])
		} else {
			b.WriteByte('\n')
		}
	}
	return b.Flush()
}
