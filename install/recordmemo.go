package install

import (
	"encoding/binary"

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

// recordFromMemo returns the record remembered for data, if any.
func recordFromMemo(dir string, data []byte) (*Record, bool) {
	if dir == "" {
		return nil, false
	}
	b, ok := memo.Read(memo.Key(dir, recordMemoKind, data), recordMemoKind, 2*len(data)+64)
	if !ok {
		return nil, false
	}
	return decodeRecordMemo(b)
}

// rememberRecord leaves the memo of r, decoded and checked from data.
func rememberRecord(dir string, data []byte, r *Record) {
	if dir != "" {
		memo.Write(memo.Key(dir, recordMemoKind, data), recordMemoKind, encodeRecordMemo(r))
	}
}

func encodeRecordMemo(r *Record) []byte {
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	var skill func(s *RecordSkill)
	skill = func(s *RecordSkill) {
		for _, v := range []string{s.Version, s.Repository, s.Manifest, s.Tree, s.Stat, s.Owner} {
			str(v)
		}
		b = binary.AppendUvarint(b, uint64(len(s.Files)))
		for _, f := range s.Files {
			str(f)
		}
		if s.Pending == nil {
			b = append(b, 0)
		} else {
			b = append(b, 1)
			skill(s.Pending)
		}
	}
	b = binary.AppendUvarint(b, uint64(r.Version))
	b = binary.AppendUvarint(b, uint64(len(r.Skills)))
	for name, s := range r.Skills {
		str(name)
		skill(s)
	}
	return b
}

// decodeRecordMemo reads what encodeRecordMemo wrote; ok is false for
// anything else. Every string is a slice of one copy of b.
func decodeRecordMemo(b []byte) (*Record, bool) {
	data := string(b)
	bad := false
	num := func() int {
		v, n := binary.Uvarint([]byte(data[:min(len(data), binary.MaxVarintLen64)]))
		if n <= 0 || v > uint64(len(data)) {
			bad = true
			return 0
		}
		data = data[n:]
		return int(v)
	}
	str := func() string {
		n := num()
		if bad || n > len(data) {
			bad = true
			return ""
		}
		s := data[:n]
		data = data[n:]
		return s
	}
	var skill func(depth int) *RecordSkill
	skill = func(depth int) *RecordSkill {
		s := &RecordSkill{Version: str(), Repository: str(), Manifest: str(), Tree: str(), Stat: str(), Owner: str()}
		if n := num(); n > 0 && !bad {
			s.Files = make([]string, n)
			for i := range s.Files {
				s.Files[i] = str()
			}
		}
		if bad || len(data) == 0 {
			bad = true
			return nil
		}
		pending := data[0]
		data = data[1:]
		switch {
		case pending == 1 && depth == 0:
			s.Pending = skill(1)
		case pending != 0:
			bad = true
		}
		return s
	}
	r := &Record{Version: num()}
	n := num()
	if bad {
		return nil, false
	}
	r.Skills = make(map[string]*RecordSkill, n)
	for range n {
		name := str()
		s := skill(0)
		if bad {
			return nil, false
		}
		r.Skills[name] = s
	}
	if len(data) != 0 || r.Version != 1 || len(r.Skills) != n {
		return nil, false
	}
	return r, true
}
