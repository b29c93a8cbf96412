package command

import (
	"bufio"
	"io"
	"text/tabwriter"
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
