package lockfile

import (
	"encoding/binary"
	"fmt"

	"github.com/skillpm/skillpm/internal/memo"
)

// Decoding skills.lock (YAML, then Validate) is most of what reading it
// costs, and a warm run reads the same bytes as the run before: ReadMemo
// remembers the decoded lock under the digest of those bytes
// (internal/memo).

// memoKind names lock memos. Bump its version whenever File, Skill or
// Source change (TestMemoCoversFields fails until then).
const memoKind = "skillpm lock memo v2"

// ReadMemo reads the lock at path as Read does, through the memo folder
// dir: a lock whose bytes were decoded before is not decoded again. A
// missing lock returns ErrNotFound; "" for dir is Read.
func ReadMemo(path, dir string) (*File, error) {
	if dir == "" {
		return Read(path)
	}
	data, err := readBytes(path)
	if err != nil {
		return nil, err
	}
	key := memo.Key(dir, memoKind, data)
	if b, ok := memo.Read(key, memoKind, 2*len(data)+64); ok {
		if f, ok := decodeMemo(b); ok {
			return f, nil
		}
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	memo.Write(key, memoKind, encodeMemo(f))
	return f, nil
}

// encodeMemo writes f as length-prefixed fields.
func encodeMemo(f *File) []byte {
	var b []byte
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendUvarint(b, uint64(f.LockVersion))
	str(f.Inputs)
	b = binary.AppendUvarint(b, uint64(len(f.Skills)))
	for _, s := range f.Skills {
		for _, v := range []string{s.Name, s.Version, s.Repository, s.Manifest, s.Content, s.Signer} {
			str(v)
		}
		var flags byte
		if s.Requested {
			flags |= 1
		}
		if s.Source != nil {
			flags |= 2
		}
		b = append(b, flags)
		if s.Source != nil {
			str(s.Source.Commit)
			str(s.Source.Ref)
			str(s.Source.Digest)
			str(s.Source.URL)
		}
		b = binary.AppendUvarint(b, uint64(len(s.Dependencies)))
		for _, d := range s.Dependencies {
			str(d)
		}
	}
	return b
}

// decodeMemo reads what encodeMemo wrote; ok is false for anything else.
// Every string is a slice of one copy of b.
func decodeMemo(b []byte) (f *File, ok bool) {
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
	f = &File{LockVersion: num(), Inputs: str()}
	n := num()
	if bad {
		return nil, false
	}
	f.Skills = make([]Skill, n)
	for i := range f.Skills {
		s := &f.Skills[i]
		s.Name, s.Version, s.Repository, s.Manifest, s.Content, s.Signer = str(), str(), str(), str(), str(), str()
		if bad || len(data) == 0 {
			return nil, false
		}
		flags := data[0]
		data = data[1:]
		s.Requested = flags&1 != 0
		if flags&2 != 0 {
			s.Source = &Source{Commit: str(), Ref: str(), Digest: str(), URL: str()}
		}
		if deps := num(); deps > 0 && !bad {
			s.Dependencies = make([]string, deps)
			for j := range s.Dependencies {
				s.Dependencies[j] = str()
			}
		}
		if bad {
			return nil, false
		}
	}
	if bad || len(data) != 0 || f.LockVersion != Version {
		return nil, false
	}
	return f, true
}
