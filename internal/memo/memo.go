// Package memo keeps, in a folder of the user's cache, what skillpm
// decoded from a file, under the sha256 of the file's exact bytes. The
// files it serves (skills.yaml, skills.lock) are hostile, but a memo
// keyed by their content answers only for that content: any edit,
// however small, names another memo, which does not exist, and the file
// is decoded and checked afresh. The folder is trusted as much as the
// rest of the user's cache.
package memo

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"unsafe"

	"github.com/skillpm/skillpm/internal/boundedfile"
)

// Keep is how many memos a folder keeps; writing one more removes the
// oldest.
const Keep = 32

// Key names the memo of data in dir. kind separates what different
// decoders remember, and carries their format version: a decoder whose
// output changes must change its kind, so it never reads a memo written
// by another version.
func Key(dir, kind string, data []byte) string {
	return KeyFunc(dir, kind, func(w io.Writer) { w.Write(data) })
}

// KeyFunc is Key of the data write writes, for data too large to hold
// at once.
func KeyFunc(dir, kind string, write func(w io.Writer)) string {
	h := sha256.New()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	write(h)
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil)))
}

// Read returns the memo at key, checked to start with kind, without
// that prefix; ok is false when there is none, it is larger than limit
// bytes or it is not a regular file (read with boundedfile: a memo
// replaced by a FIFO or a link to /dev/zero is no answer, not a hang).
func Read(key, kind string, limit int) (data []byte, ok bool) {
	b, err := boundedfile.Read(key, int64(limit+len(kind)+1))
	if err != nil {
		return nil, false
	}
	rest, ok := bytes.CutPrefix(b, []byte(kind+"\n"))
	return rest, ok
}

// ReadDecoder is Read, returning a Decoder over the memo. A decoder
// made with NewDecoder copies its bytes; this one owns the buffer it
// read, and decodes from it in place.
func ReadDecoder(key, kind string, limit int) (*Decoder, bool) {
	b, ok := Read(key, kind, limit)
	if !ok {
		return nil, false
	}
	if len(b) == 0 {
		return &Decoder{}, true
	}
	// Nothing else holds b: its bytes cannot change under the string.
	return &Decoder{data: unsafe.String(&b[0], len(b))}, true
}

// Write leaves the memo data at key, prefixed with kind; best effort
// (without one, the next run only decodes the file again). It is
// renamed into place whole, unsynced: a memo cut short by a crash must
// fail its decoder, which then decodes the file afresh.
func Write(key, kind string, data []byte) {
	dir := filepath.Dir(key)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append([]byte(kind+"\n"), data...))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), key) != nil {
		os.Remove(tmp.Name())
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) <= Keep {
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
	for _, a := range all[:max(len(all)-Keep, 0)] {
		os.Remove(filepath.Join(dir, a.name))
	}
}
