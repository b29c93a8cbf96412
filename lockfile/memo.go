package lockfile

import (
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
	data, err := readBytes(path)
	if err != nil {
		return nil, err
	}
	return ParseMemo(path, data, dir)
}

// ParseMemo is ReadMemo for data, the bytes of the lock at path (named
// in errors) that the caller read as Read does (at most MaxFileSize
// bytes): a warm install has read them already, for the digest of what
// it depends on.
func ParseMemo(path string, data []byte, dir string) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("%s: %w: %d bytes; skills.lock must be a regular file of at most %d bytes", path, ErrInvalid, len(data), MaxFileSize)
	}
	if dir == "" {
		f, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return f, nil
	}
	key := memo.Key(dir, memoKind, data)
	if d, ok := memo.ReadDecoder(key, memoKind, 2*len(data)+64); ok {
		if f, ok := decodeMemo(d); ok {
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

// encodeMemo writes f in memo's field format.
func encodeMemo(f *File) []byte {
	var e memo.Encoder
	e.Num(f.LockVersion)
	e.Str(f.Inputs)
	e.Num(len(f.Skills))
	for _, s := range f.Skills {
		for _, v := range []string{s.Name, s.Version, s.Repository, s.Manifest, s.Content, s.Signer} {
			e.Str(v)
		}
		var flags byte
		if s.Requested {
			flags |= 1
		}
		if s.Source != nil {
			flags |= 2
		}
		e.Byte(flags)
		if s.Source != nil {
			e.Str(s.Source.Commit)
			e.Str(s.Source.Ref)
			e.Str(s.Source.Digest)
			e.Str(s.Source.URL)
		}
		e.Strs(s.Dependencies)
	}
	return e.B
}

// decodeMemo reads what encodeMemo wrote from d; ok is false for
// anything else.
func decodeMemo(d *memo.Decoder) (f *File, ok bool) {
	f = &File{LockVersion: d.Num(), Inputs: d.Str()}
	n := d.Count(7) // six strings and the flags each
	if d.Bad {
		return nil, false
	}
	f.Skills = make([]Skill, n)
	for i := range f.Skills {
		s := &f.Skills[i]
		s.Name, s.Version, s.Repository, s.Manifest, s.Content, s.Signer = d.Str(), d.Str(), d.Str(), d.Str(), d.Str(), d.Str()
		flags := d.Byte()
		if d.Bad {
			return nil, false
		}
		s.Requested = flags&1 != 0
		if flags&2 != 0 {
			s.Source = &Source{Commit: d.Str(), Ref: d.Str(), Digest: d.Str(), URL: d.Str()}
		}
		s.Dependencies = d.Strs()
		if d.Bad {
			return nil, false
		}
	}
	if !d.Done() || f.LockVersion != Version {
		return nil, false
	}
	return f, true
}
