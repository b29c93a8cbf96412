package install

import (
	"io"

	"github.com/skillpm/skillpm/internal/memo"
)

// Decoding a target's install record (JSON, then every field checked)
// is, after the folder scan, what a warm install or status pays most per
// skill, and a warm run reads the bytes the run before wrote. With a
// memo folder (Options.RecordMemo) the checked record is remembered under
// the digest of those bytes (internal/memo): the record is hostile, but
// the memo answers only for the bytes it was decoded from.

// recordMemoKind names record memos. Bump its version whenever Record or
// RecordSkill change (TestRecordMemoCoversFields fails until then).
const recordMemoKind = "skillpm install record memo v1"

// recordKey returns the key (memo.Key) of the record memo in dir for the
// bytes r yields, up to MaxRecordSize+1 of them, and how many it read.
// It hashes them through a small buffer rather than holding them: a
// warm run's memo is found, and the record's bytes are not needed.
func recordKey(dir string, r io.Reader) (key string, n int64, err error) {
	buf := make([]byte, 16<<10)
	key = memo.KeyFunc(dir, recordMemoKind, func(w io.Writer) {
		n, err = io.CopyBuffer(w, io.LimitReader(r, MaxRecordSize+1), buf)
	})
	return key, n, err
}

// recordFromMemo returns the record remembered at key (recordKey) for a
// record of size bytes, if any.
func recordFromMemo(key string, size int64) (*Record, bool) {
	d, ok := memo.ReadDecoder(key, recordMemoKind, int(2*size+64))
	if !ok {
		return nil, false
	}
	return decodeRecordMemo(d)
}

// rememberRecord leaves the memo of r, decoded and checked from data.
func rememberRecord(dir string, data []byte, r *Record) {
	if dir != "" {
		memo.Write(memo.Key(dir, recordMemoKind, data), recordMemoKind, encodeRecordMemo(r))
	}
}

func encodeRecordMemo(r *Record) []byte {
	var e memo.Encoder
	var skill func(s *RecordSkill)
	skill = func(s *RecordSkill) {
		for _, v := range []string{s.Version, s.Repository, s.Manifest, s.Tree, s.Stat, s.Owner} {
			e.Str(v)
		}
		e.Strs(s.Files)
		if s.Pending == nil {
			e.Byte(0)
		} else {
			e.Byte(1)
			skill(s.Pending)
		}
	}
	e.Num(r.Version)
	e.Num(len(r.Skills))
	for name, s := range r.Skills {
		e.Str(name)
		skill(s)
	}
	return e.B
}

// decodeRecordMemo reads what encodeRecordMemo wrote from d; ok is false
// for anything else.
func decodeRecordMemo(d *memo.Decoder) (*Record, bool) {
	var skill func(depth int) *RecordSkill
	skill = func(depth int) *RecordSkill {
		s := &RecordSkill{Version: d.Str(), Repository: d.Str(), Manifest: d.Str(), Tree: d.Str(), Stat: d.Str(), Owner: d.Str()}
		s.Files = d.Strs()
		switch pending := d.Byte(); {
		case d.Bad:
			return nil
		case pending == 1 && depth == 0:
			s.Pending = skill(1)
		case pending != 0:
			d.Bad = true
		}
		return s
	}
	r := &Record{Version: d.Num()}
	n := d.Count(9) // a name, six strings, a count and a flag each
	if d.Bad {
		return nil, false
	}
	r.Skills = make(map[string]*RecordSkill, n)
	for range n {
		name := d.Str()
		s := skill(0)
		if d.Bad {
			return nil, false
		}
		r.Skills[name] = s
	}
	if !d.Done() || r.Version != 1 || len(r.Skills) != n {
		return nil, false
	}
	return r, true
}
