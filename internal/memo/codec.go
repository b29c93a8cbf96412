package memo

import "encoding/binary"

// The memos of skills.lock and of install records share one format:
// uvarint numbers, strings as a uvarint length and their bytes, and
// single flag bytes, written by an Encoder and read back by a Decoder.
// Decoding costs one copy of the bytes; every string is a slice of it.

// Encoder appends fields to B.
type Encoder struct {
	B []byte
}

// Num appends n.
func (e *Encoder) Num(n int) { e.B = binary.AppendUvarint(e.B, uint64(n)) }

// Str appends s with its length.
func (e *Encoder) Str(s string) {
	e.Num(len(s))
	e.B = append(e.B, s...)
}

// Byte appends c.
func (e *Encoder) Byte(c byte) { e.B = append(e.B, c) }

// Strs appends the count of l and each string.
func (e *Encoder) Strs(l []string) {
	e.Num(len(l))
	for _, s := range l {
		e.Str(s)
	}
}

// Decoder reads what an Encoder wrote. A read past the end or of a
// malformed field sets Bad, after which every read returns a zero value:
// a caller checks Bad (or Done) once after a group of reads.
type Decoder struct {
	data string
	Bad  bool
}

// NewDecoder reads b (copied once).
func NewDecoder(b []byte) *Decoder { return &Decoder{data: string(b)} }

// Num reads a number; one larger than the bytes left is malformed (no
// count or length in these formats can exceed them).
func (d *Decoder) Num() int {
	if d.Bad {
		return 0
	}
	v, n := binary.Uvarint([]byte(d.data[:min(len(d.data), binary.MaxVarintLen64)]))
	if n <= 0 || v > uint64(len(d.data)) {
		d.Bad = true
		return 0
	}
	d.data = d.data[n:]
	return int(v)
}

// Count reads the number of items that follow, each encoded in at least
// size bytes; a count whose items could not fit in the bytes left is
// malformed. A caller sizing a slice or map by a count reads it with
// Count, so that a corrupt memo cannot make it allocate many times the
// memo's size (an item decoded is often far larger than its encoding).
func (d *Decoder) Count(size int) int {
	n := d.Num()
	if !d.Bad && n > len(d.data)/max(size, 1) {
		d.Bad = true
		return 0
	}
	return n
}

// Str reads a string.
func (d *Decoder) Str() string {
	n := d.Num()
	if d.Bad || n > len(d.data) {
		d.Bad = true
		return ""
	}
	s := d.data[:n]
	d.data = d.data[n:]
	return s
}

// Strs reads what Encoder.Strs wrote: nil for none, or after a bad
// read.
func (d *Decoder) Strs() []string {
	n := d.Count(1) // each string is at least its length's byte
	if n == 0 || d.Bad {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.Str()
	}
	return l
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if d.Bad || len(d.data) == 0 {
		d.Bad = true
		return 0
	}
	c := d.data[0]
	d.data = d.data[1:]
	return c
}

// Done reports whether every byte was read and none was malformed.
func (d *Decoder) Done() bool { return !d.Bad && len(d.data) == 0 }
