package install

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/memo"
)

// A record read through the memo folder is the record read without it;
// other bytes are decoded and checked afresh, so an edited record is
// still refused.
func TestRecordMemo(t *testing.T) {
	target, memos := t.TempDir(), t.TempDir()
	dg := "sha256:" + strings.Repeat("a", 64)
	rec := newRecord()
	rec.Skills["pdf"] = &RecordSkill{Version: "1.0.0", Repository: "r.example/pdf", Manifest: dg, Tree: dg, Stat: dg, Files: []string{"SKILL.md", "scripts/run.sh"}, Owner: "project",
		Pending: &RecordSkill{Version: "1.1.0", Repository: "r.example/pdf", Manifest: dg, Tree: dg, Files: []string{"SKILL.md"}}}
	rec.Skills["docx"] = &RecordSkill{Version: "2.0.0", Repository: "r.example/docx", Manifest: dg, Tree: dg, Stat: dg}
	if err := rec.Write(target); err != nil {
		t.Fatal(err)
	}
	want, err := ReadRecord(target)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"cold", "warm"} {
		got, err := readRecordAt(target, memos)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, %v; want %+v", run, got, err, want)
		}
	}
	entries, _ := os.ReadDir(memos)
	if len(entries) != 1 {
		t.Fatalf("%d memos; want 1", len(entries))
	}
	whole, _ := os.ReadFile(filepath.Join(memos, entries[0].Name()))
	b, _ := bytes.CutPrefix(whole, []byte(recordMemoKind+"\n"))
	for _, cut := range []int{0, 1, len(b) / 2, len(b) - 1} {
		if _, ok := decodeRecordMemo(memo.NewDecoder(b[:cut])); ok {
			t.Errorf("a memo cut to %d of %d bytes decodes", cut, len(b))
		}
	}
	// An edited record, memo or not, is refused.
	p := filepath.Join(target, RecordName)
	data, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(data, []byte(`"SKILL.md"`), []byte(`"../escape"`), 1), 0o644)
	if _, err := readRecordAt(target, memos); !errors.Is(err, ErrBadRecord) {
		t.Errorf("edited record: %v; want ErrBadRecord", err)
	}
}

// The memo encodes every field of a record: a field added to Record or
// RecordSkill must be added to the codec, and recordMemoKind's version
// bumped, before this passes again.
func TestRecordMemoCoversFields(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{Record{}, "Version Skills"},
		{RecordSkill{}, "Version Repository Manifest Tree Stat Files Owner Pending scan"},
	} {
		var names []string
		for f := range reflect.TypeOf(c.v).Fields() {
			names = append(names, f.Name)
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("%T has the fields %s; the memo encodes %s", c.v, got, c.want)
		}
	}
}

// A record or folder memo that claims more entries than its bytes could
// hold is no answer, refused before anything is allocated for them.
func TestMemoHostileCount(t *testing.T) {
	const pad = 1 << 20
	memoDir, target := t.TempDir(), t.TempDir()
	var rec, folders memo.Encoder
	rec.Num(1)
	rec.Num(pad)
	folders.Num(pad)
	memo.Write(memo.Key(memoDir, folderMemoKind, []byte(target)), folderMemoKind, append(folders.B, make([]byte, pad)...))
	for _, c := range []struct {
		name   string
		decode func() bool
	}{
		{"record", func() bool {
			_, ok := decodeRecordMemo(memo.NewDecoder(append(rec.B, make([]byte, pad)...)))
			return ok
		}},
		{"folders", func() bool { return readFolderMemo(memoDir, target) != nil }},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if c.decode() {
			t.Errorf("%s: a memo of %d empty bytes was read", c.name, pad)
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 24*pad {
			t.Errorf("%s: decoding a %d byte memo allocated %d bytes", c.name, pad, got)
		}
	}
}
