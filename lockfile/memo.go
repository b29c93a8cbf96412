package lockfile

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Decoding skills.lock (YAML, then Validate) is most of what reading it
// costs, and a warm run reads the same bytes as the run before. ReadMemo
// keeps, in a folder of the user's cache, the decoded lock under the
// sha256 of the exact bytes it was decoded from: the lock is hostile,
// but a memo keyed by its content answers only for that content, and any
// edit, however small, names another memo, which does not exist. The
// memo folder is trusted as much as the rest of the user's cache.

// memoMagic starts every memo file. Bump its version whenever File,
// Skill or Source change (TestMemoCoversFields fails until then): a
// memo written by another version is then never read.
const memoMagic = "skillpm lock memo v1\n"

// maxMemos is how many memos the folder keeps; writing one more removes
// the oldest.
const maxMemos = 32

// ReadMemo reads the lock at path as Read does, through the memo folder
// dir: a lock whose bytes were decoded before is not decoded again. A
// missing lock returns ErrNotFound; "" for dir is Read.
func ReadMemo(path, dir string) (*File, error) {
	if dir == "" {
		return Read(path)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(append([]byte(memoMagic), data...))
	name := filepath.Join(dir, hex.EncodeToString(sum[:]))
	if memo, err := os.ReadFile(name); err == nil && len(memo) <= 2*len(data)+len(memoMagic)+64 {
		if f, ok := decodeMemo(memo); ok {
			return f, nil
		}
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	writeMemo(dir, name, encodeMemo(f))
	return f, nil
}

// writeMemo leaves a memo; best effort (without one, the next run only
// decodes the lock again). It is renamed into place whole, unsynced: a
// memo cut short by a crash fails decodeMemo and is decoded afresh.
func writeMemo(dir, name string, data []byte) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), name) != nil {
		os.Remove(tmp.Name())
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= maxMemos {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var all []aged
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			all = append(all, aged{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(all, func(a, b aged) int { return int(min(max(a.mod-b.mod, -1), 1)) })
	for _, a := range all[:max(len(all)-maxMemos, 0)] {
		os.Remove(filepath.Join(dir, a.name))
	}
}

// encodeMemo writes f as length-prefixed fields.
func encodeMemo(f *File) []byte {
	b := []byte(memoMagic)
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
		}
		b = binary.AppendUvarint(b, uint64(len(s.Dependencies)))
		for _, d := range s.Dependencies {
			str(d)
		}
	}
	return b
}

// decodeMemo reads what encodeMemo wrote; ok is false for anything else.
// Every string is a slice of one copy of memo.
func decodeMemo(memo []byte) (f *File, ok bool) {
	data, ok := strings.CutPrefix(string(memo), memoMagic)
	if !ok {
		return nil, false
	}
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
			s.Source = &Source{Commit: str(), Ref: str(), Digest: str()}
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
