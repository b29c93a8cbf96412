package lockfile

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

// ReadMemo answers as Read does: from the memo for the same bytes, and
// from the file itself for any other bytes, however small the edit.
func TestReadMemo(t *testing.T) {
	dir := t.TempDir()
	memos := filepath.Join(dir, "memo")
	p := filepath.Join(dir, FileName)
	f := sample()
	f.Skills = append(f.Skills, Skill{Name: "git-one", Version: "0.1.0", Repository: "git+https://example.com/r.git//s", Manifest: dg("4"), Content: dg("c4"),
		Source: &Source{Commit: strings.Repeat("a", 40), Ref: "refs/tags/v0.1.0"}, Signer: "someone@example.com"})
	if err := Write(p, f); err != nil {
		t.Fatal(err)
	}
	want, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range []string{"cold", "warm"} {
		got, err := ReadMemo(p, memos)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: ReadMemo = %+v, %v; want %+v", run, got, err, want)
		}
	}
	if entries, _ := os.ReadDir(memos); len(entries) != 1 {
		t.Fatalf("memo folder holds %d files, want 1", len(entries))
	}
	// An edited lock is decoded (and refused) afresh.
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "version: 2.1.0", "version: 2.1.1", 1)), 0o644)
	if got, err := ReadMemo(p, memos); err != nil || got.Find("alpha").Version != "2.1.1" {
		t.Errorf("edited lock: %+v, %v; want version 2.1.1", got, err)
	}
	os.WriteFile(p, []byte(strings.Replace(string(data), "name: alpha", "name: ../alpha", 1)), 0o644)
	if _, err := ReadMemo(p, memos); !errors.Is(err, ErrInvalid) {
		t.Errorf("tampered lock: %v; want ErrInvalid", err)
	}
	// A memo cut short (a crash while it was written) is not believed.
	os.WriteFile(p, data, 0o644)
	entries, _ := os.ReadDir(memos)
	for _, e := range entries {
		m := filepath.Join(memos, e.Name())
		whole, _ := os.ReadFile(m)
		b, ok := bytes.CutPrefix(whole, []byte(memoKind+"\n"))
		if _, dok := decodeMemo(memo.NewDecoder(b)); !ok || !dok {
			t.Errorf("%s: a memo ReadMemo wrote does not decode", e.Name())
		}
		for _, cut := range []int{0, 1, len(b) / 2, len(b) - 1} {
			if _, ok := decodeMemo(memo.NewDecoder(b[:cut])); ok {
				t.Errorf("a memo cut to %d of %d bytes decodes", cut, len(b))
			}
		}
		os.WriteFile(m, whole[:len(whole)/2], 0o644)
	}
	if got, err := ReadMemo(p, memos); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("with a cut memo: %+v, %v", got, err)
	}
	if _, err := ReadMemo(filepath.Join(dir, "none.lock"), memos); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing lock: %v; want ErrNotFound", err)
	}
}

// The memo encodes every field of a lock: a field added to File, Skill
// or Source must be added to encodeMemo and decodeMemo, and memoKind's
// version bumped, before this passes again.
func TestMemoCoversFields(t *testing.T) {
	fields := func(v any) (names []string) {
		for f := range reflect.TypeOf(v).Fields() {
			names = append(names, f.Name)
		}
		return names
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{File{}, "LockVersion Inputs Skills"},
		{Skill{}, "Name Version Repository Source Manifest Content Dependencies Requested Signer"},
		{Source{}, "Commit Ref Digest URL"},
	} {
		if got := strings.Join(fields(c.v), " "); got != c.want {
			t.Errorf("%T has the fields %s; the memo encodes %s", c.v, got, c.want)
		}
	}
}

// A lock memo that claims more skills than its bytes could hold is no
// answer, refused before anything is allocated for them.
func TestMemoHostileCount(t *testing.T) {
	const pad = 1 << 20
	var e memo.Encoder
	e.Num(Version)
	e.Str("")
	e.Num(pad)
	b := append(e.B, make([]byte, pad)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, ok := decodeMemo(memo.NewDecoder(b)); ok {
		t.Errorf("a memo of %d empty bytes was read", pad)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 32*pad {
		t.Errorf("decoding a %d byte memo allocated %d bytes", pad, got)
	}
}

// TestParseMemoBound checks that ParseMemo refuses bytes over the lock's
// bound itself, whatever its caller read them with.
func TestParseMemoBound(t *testing.T) {
	data := make([]byte, MaxFileSize+1)
	if _, err := ParseMemo("skills.lock", data, t.TempDir()); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "skills.lock") {
		t.Errorf("ParseMemo of %d bytes: %v; want ErrInvalid naming the file", len(data), err)
	}
}
