package index

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"path/filepath"
	"strconv"

	"github.com/skillpm/skillpm/internal/memo"
	"github.com/skillpm/skillpm/skill"
)

// A warm listing reads the same thousand records it read the run before,
// and decoding them (JSON, one record per folder) was most of what it
// cost. [Installed] also remembers the whole answer in one memo
// (internal/memo), in the folder MemoDirName beside the index file,
// named by the digest of every folder's path and fingerprint, in order:
// the folders and the stat identity of each one's SKILL.md and
// tools.json. A memo answers only for exactly those folders in exactly
// those states; an edited, added, removed or renamed skill names another
// memo, which does not exist, and the run goes through the index as
// before and leaves a memo for the next one. Its values are in memo's
// field format, cheap to decode; what is rare and nested (permissions,
// selection triggers, overlays, problems) stays JSON, decoded only when
// a skill has it. A folder that could not be read as a skill is
// remembered as such, without its error: a run served by the memo reads
// it again, so its error is always today's.

// MemoDirName is the folder, beside the index file, of the memos of
// whole sets of installed skills.
const MemoDirName = "installed-memo"

// memoKind names installed-set memos. Bump its version whenever Skill,
// skill.Tool or the encoding change (TestMemoCoversFields fails until
// then); Format is part of it, so a memo is never read by a build whose
// index records hold something else.
const memoKind = "skillpm installed memo v2 format " + Format

// memoPerFolder bounds a memo's size: this many bytes per folder.
const memoPerFolder = 64 << 10

// memoKey names the memo of the folders dirs in the states fps, in the
// memo folder beside the index at path.
func memoKey(path string, dirs []string, fps []Fingerprint) string {
	return memo.KeyFunc(filepath.Join(filepath.Dir(path), MemoDirName), memoKind, func(w io.Writer) {
		// Written a few kilobytes at a time: the whole is a hundred
		// kilobytes for a thousand skills.
		b := make([]byte, 0, 4<<10)
		stamp := func(s Stamp) {
			b = binary.AppendVarint(b, s.Size)
			b = binary.AppendVarint(b, s.ModTime)
			b = binary.AppendUvarint(b, s.Ino)
			b = binary.AppendVarint(b, s.Change)
		}
		for i, d := range dirs {
			b = binary.AppendUvarint(b, uint64(len(d)))
			b = append(b, d...)
			stamp(fps[i].SkillMD)
			stamp(fps[i].ToolsJSON)
			b = binary.AppendVarint(b, fps[i].Dir)
			if len(b) >= 3<<10 {
				w.Write(b)
				b = b[:0]
			}
		}
		w.Write(b)
	})
}

// readMemo decodes into at(i) the metadata of n folders remembered at
// key, and returns for each whether it is known (false: the folder could
// not be read, and is read again); ok is false when there is no memo, or
// it is larger than its bound or does not decode (a corrupt memo is no
// answer), and what at(i) holds is then undefined.
func readMemo(key string, n int, at func(i int) *Skill) (known []bool, ok bool) {
	d, ok := memo.ReadDecoder(key, memoKind, n*memoPerFolder)
	if !ok {
		return nil, false
	}
	return decodeMemo(d, n, at)
}

// writeMemo remembers the metadata of res at key (best effort).
func writeMemo(key string, res []Result) {
	b, err := encodeMemo(res)
	if err != nil || len(b) > len(res)*memoPerFolder {
		return
	}
	memo.Write(key, memoKind, b)
}

func encodeMemo(res []Result) ([]byte, error) {
	var e memo.Encoder
	// blob writes v as JSON, or nothing ("") when empty is true.
	var err error
	blob := func(empty bool, v any) {
		if empty {
			e.Str("")
			return
		}
		b, jerr := json.Marshal(v)
		if jerr != nil {
			err = jerr
		}
		e.Str(string(b))
	}
	e.Num(len(res))
	for i := range res {
		if res[i].Err != nil {
			e.Num(0) // not read: read again
			continue
		}
		e.Num(1)
		s := &res[i].Skill
		e.Str(s.Name)
		e.Str(s.Description)
		e.Str(s.Version)
		e.Num(len(s.Tools))
		for j := range s.Tools {
			t := &s.Tools[j]
			for _, v := range []string{t.Name, t.Description, string(t.InputSchema), string(t.OutputSchema),
				t.Runtime, t.Entrypoint, t.Handler, strconv.Itoa(t.TimeoutSeconds), string(t.Source), string(t.Format)} {
				e.Str(v)
			}
			blob(t.Dependencies == nil, t.Dependencies)
			blob(t.Confirmation == nil, t.Confirmation)
		}
		e.Strs(s.Secrets)
		blob(s.Permissions == nil, s.Permissions)
		e.Strs(s.RequireConfirmation)
		blob(s.WhenToUse == nil, s.WhenToUse)
		blob(len(s.HostOverrides) == 0, s.HostOverrides)
		blob(len(s.Problems) == 0, s.Problems)
	}
	return e.B, err
}

// decodeMemo reads from d, into at(i), what encodeMemo wrote for n
// folders (straight into the caller's results: a thousand skills are a
// fifth of a megabyte); ok is false for anything else.
func decodeMemo(d *memo.Decoder, n int, at func(i int) *Skill) (known []bool, ok bool) {
	if d.Num() != n || d.Bad {
		return nil, false
	}
	raw := func() json.RawMessage {
		if s := d.Str(); s != "" {
			return json.RawMessage(s)
		}
		return nil
	}
	// decodeJSON decodes the JSON s, when there is any, into v.
	var bad bool
	decodeJSON := func(s string, v any) {
		if s != "" && json.Unmarshal([]byte(s), v) != nil {
			bad = true
		}
	}
	known = make([]bool, n)
	for i := range n {
		switch d.Num() {
		case 0:
			continue
		case 1:
			known[i] = true
		default:
			return nil, false
		}
		s := at(i)
		s.Name, s.Description, s.Version = d.Str(), d.Str(), d.Str()
		// A tool is 12 fields, each at least a byte.
		if k := d.Count(12); k > 0 && !d.Bad {
			s.Tools = make([]skill.Tool, k)
			for j := range s.Tools {
				t := &s.Tools[j]
				t.Name, t.Description = d.Str(), d.Str()
				t.InputSchema, t.OutputSchema = raw(), raw()
				t.Runtime, t.Entrypoint, t.Handler = d.Str(), d.Str(), d.Str()
				timeout, err := strconv.Atoi(d.Str())
				if err != nil {
					return nil, false
				}
				t.TimeoutSeconds = timeout
				t.Source, t.Format = skill.ToolSource(d.Str()), skill.ToolFormat(d.Str())
				t.Dependencies = jsonOf[skill.ToolDeps](d.Str(), &bad)
				t.Confirmation = jsonOf[skill.ToolConfirm](d.Str(), &bad)
			}
		}
		s.Secrets = d.Strs()
		s.Permissions = jsonOf[skill.Permissions](d.Str(), &bad)
		s.RequireConfirmation = d.Strs()
		s.WhenToUse = jsonOf[skill.WhenToUse](d.Str(), &bad)
		decodeJSON(d.Str(), &s.HostOverrides)
		decodeJSON(d.Str(), &s.Problems)
		if d.Bad || bad {
			return nil, false
		}
	}
	if !d.Done() {
		return nil, false
	}
	return known, true
}

// jsonOf decodes the JSON s into a new T, or returns nil when s is empty
// (most are: nothing is allocated for them); a bad one sets *bad.
func jsonOf[T any](s string, bad *bool) *T {
	if s == "" {
		return nil
	}
	v := new(T)
	if json.Unmarshal([]byte(s), v) != nil {
		*bad = true
		return nil
	}
	return v
}
