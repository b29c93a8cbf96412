package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/skill"
)

// RecordName is the file in each target folder that lists the skills
// skillpm installed there, like npm's node_modules/.package-lock.json.
// Agents ignore it: it is not a skill folder.
const RecordName = ".skillpm-install.json"

// MaxRecordSize bounds how much of a record is read. A record lists file
// paths and digests; thousands of skills fit in far less.
const MaxRecordSize = 8 << 20

// Record lists the managed skills of one target folder.
type Record struct {
	Version int                     `json:"version"`
	Skills  map[string]*RecordSkill `json:"skills"`
}

// RecordSkill is one managed skill as installed.
type RecordSkill struct {
	Version    string   `json:"version"`
	Repository string   `json:"repository"`
	Manifest   string   `json:"manifest"`
	Tree       string   `json:"tree"`
	Stat       string   `json:"stat"`
	Files      []string `json:"files"`
	// Owner is who installed the skill ("project", or "user" for -g).
	Owner string `json:"owner,omitempty"`
	// Pending journals an install or update that was about to be swapped
	// in: after a crash the folder holds either the recorded tree or this
	// one, and both count as unedited.
	Pending *RecordSkill `json:"pending,omitempty"`

	// scan is prescan's verdict: whether the folder matched Stat when
	// this run planned (scan.go). Never saved.
	scan scanVerdict
}

// ErrBadRecord is wrapped by every error about a record that exists but
// cannot be trusted: unreadable, too large, not a regular file, or with a
// field out of bounds.
var ErrBadRecord = errors.New("invalid install record")

// RecordError reports a record skillpm will not act on. A record is a
// committed project file: an edited one must never make skillpm delete
// or write anything, so the whole run stops with nothing changed.
type RecordError struct {
	Path    string // the record file
	Problem string
}

func (e *RecordError) Error() string {
	return fmt.Sprintf("%s: %s; skillpm writes this file and changes nothing on the word of an edited one: restore it (git checkout -- %s), or delete it and run 'skillpm install', which adopts the skill folders that hold the locked content",
		e.Path, e.Problem, e.Path)
}

// Unwrap makes errors.Is(err, ErrBadRecord) hold.
func (e *RecordError) Unwrap() error { return ErrBadRecord }

// ReadRecord reads and validates a target's record. A missing target or
// record reads as empty; any other problem is a *RecordError.
func ReadRecord(target string) (*Record, error) { return readRecordAt(target, "") }

// readRecordAt is ReadRecord through the memo folder memoDir.
func readRecordAt(target, memoDir string) (*Record, error) {
	root, err := os.OpenRoot(target)
	if errors.Is(err, fs.ErrNotExist) {
		return newRecord(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", target, err)
	}
	defer root.Close()
	return readRecord(root, target, memoDir)
}

func newRecord() *Record { return &Record{Version: 1, Skills: map[string]*RecordSkill{}} }

// readRecord reads the record of the target open as root: a regular file
// (never a link) of at most MaxRecordSize bytes, whose every field is
// valid. With memoDir, bytes decoded and checked before are not decoded
// again (recordmemo.go).
func readRecord(root *os.Root, target, memoDir string) (*Record, error) {
	p := filepath.Join(target, RecordName)
	bad := func(format string, a ...any) error {
		return &RecordError{Path: p, Problem: fmt.Sprintf(format, a...)}
	}
	fi, err := root.Lstat(RecordName)
	if errors.Is(err, fs.ErrNotExist) {
		return newRecord(), nil
	}
	if err != nil {
		return nil, bad("cannot read it: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, bad("not a regular file (%s)", fi.Mode().Type())
	}
	f, err := root.Open(RecordName)
	if err != nil {
		return nil, bad("cannot read it: %v", err)
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		return nil, bad("it changed while it was read")
	}
	if memoDir != "" {
		// A warm run needs only the digest of the bytes (recordKey);
		// they are read whole only to be decoded, from the start again.
		key, n, err := recordKey(memoDir, f)
		if err != nil {
			return nil, bad("cannot read it: %v", err)
		}
		if n > MaxRecordSize {
			return nil, bad("larger than %d bytes", MaxRecordSize)
		}
		if r, ok := recordFromMemo(key, n); ok {
			return r, nil
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, bad("cannot read it: %v", err)
		}
	}
	data, err := readAllSized(io.LimitReader(f, MaxRecordSize+1), min(max(fi.Size(), 0), MaxRecordSize)+1)
	if err != nil {
		return nil, bad("cannot read it: %v", err)
	}
	if len(data) > MaxRecordSize {
		return nil, bad("larger than %d bytes", MaxRecordSize)
	}
	var r Record
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, bad("not a skillpm install record: %v", err)
	}
	if dec.More() {
		return nil, bad("not a skillpm install record: data after the JSON object")
	}
	if r.Version != 1 {
		return nil, bad("record version %d; this skillpm reads version 1", r.Version)
	}
	if r.Skills == nil {
		r.Skills = map[string]*RecordSkill{}
	}
	for name, s := range r.Skills {
		if !skill.ValidName(name) { // a name is a folder: never trust one that could leave the target
			return nil, bad("%q is not a valid skill name", name)
		}
		if s == nil {
			return nil, bad("skill %s: empty entry", name)
		}
		if err := s.validate(true); err != nil {
			return nil, bad("skill %s: %v", name, err)
		}
	}
	rememberRecord(memoDir, data, &r)
	return &r, nil
}

// readAllSized is io.ReadAll starting from a buffer of size bytes (the
// file's size, bounded by the caller), so that a large record is not
// copied through a series of doubling buffers.
func readAllSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

const maxField = 4096

// validate checks every field of an entry: digests well-formed, texts
// bounded and printable, and every file a clean relative path that stays
// inside the skill folder. outer allows a Pending entry.
func (s *RecordSkill) validate(outer bool) error {
	for _, d := range []struct{ name, v string }{{"manifest", s.Manifest}, {"tree", s.Tree}, {"stat", s.Stat}} {
		if d.v != "" && !lockfile.ValidDigest(d.v) { // ^sha256:[0-9a-f]{64}$, without a regexp per field
			return fmt.Errorf("%s %q is not a sha256 digest", d.name, clip(d.v))
		}
	}
	for _, t := range []struct{ name, v string }{{"version", s.Version}, {"repository", s.Repository}, {"owner", s.Owner}} {
		if len(t.v) > maxField || strings.ContainsFunc(t.v, isControl) {
			return fmt.Errorf("%s %q is not a plain text of at most %d bytes", t.name, clip(t.v), maxField)
		}
	}
	for _, f := range s.Files {
		if err := checkRecordedPath(f); err != nil {
			return err
		}
	}
	if s.Pending != nil {
		if !outer {
			return errors.New("a pending entry has its own pending entry")
		}
		if err := s.Pending.validate(false); err != nil {
			return fmt.Errorf("pending: %w", err)
		}
	}
	return nil
}

// checkRecordedPath accepts a slash-separated path that is local to the
// skill folder (filepath.IsLocal) and written as HashTree writes it.
func checkRecordedPath(f string) error {
	local := f != "" && f != "." && len(f) <= maxField && !strings.ContainsFunc(f, isControl) &&
		!strings.Contains(f, `\`) && path.Clean(f) == f && filepath.IsLocal(filepath.FromSlash(f))
	if !local {
		return fmt.Errorf("file %q is not a path inside the skill folder", clip(f))
	}
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// Write saves the record in target atomically; an empty record removes
// the file.
func (r *Record) Write(target string) error {
	root, err := os.OpenRoot(target)
	if err != nil {
		return err
	}
	defer root.Close()
	return r.write(root)
}

// write saves the record through root: a new file beside it, renamed over
// it, so a link at the record's name is replaced, never followed.
func (r *Record) write(root *os.Root) error {
	if len(r.Skills) == 0 {
		err := root.Remove(RecordName)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFileIn(root, RecordName, append(data, '\n'), 0o644)
}

// recordTempPrefix begins the temporary files of a record being written
// (atomicfile.TempPrefix(RecordName)).
const recordTempPrefix = RecordName + ".tmp-"
