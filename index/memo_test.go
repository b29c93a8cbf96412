package index

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/memo"
	"github.com/skillpm/skillpm/skill"
)

// parsed returns what Installed says of dirs without any index or memo:
// every folder parsed afresh.
func parsed(t *testing.T, dirs []string) []Skill {
	t.Helper()
	res, _ := Installed(context.Background(), "", dirs, Options{})
	out := make([]Skill, len(res))
	for i, r := range res {
		if r.Err != nil {
			t.Fatalf("parse %s: %v", r.Dir, r.Err)
		}
		out[i] = r.Skill
	}
	return out
}

// The memo of the whole set answers only for the folders in the states
// it was written for: an edited SKILL.md or tools.json, an added or
// removed folder, a corrupt memo file each give what parsing gives, and
// the next call is served by the memo again.
func TestInstalledMemo(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), FileName)
	memoDir := filepath.Join(filepath.Dir(db), MemoDirName)
	a := writeSkill(t, root, "alpha", "first")
	b := writeSkill(t, root, "beta", "second")
	tools := filepath.Join(b, skill.ToolsFileName)
	writeTools := func(desc string) {
		t.Helper()
		j := `[{"name": "greet", "description": "` + desc + `", "script": "scripts/run.sh", "parameters": {"who": {"type": "string", "description": "Whom."}}}]`
		if err := os.WriteFile(tools, []byte(j), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeTools("Says hello.")
	dirs := []string{a, b}
	var loads atomic.Int32
	opts := Options{Load: counting(&loads)}
	corrupt := func(data []byte) func() {
		return func() {
			ents, err := os.ReadDir(memoDir)
			if err != nil || len(ents) == 0 {
				t.Fatalf("no memo to corrupt in %s: %v", memoDir, err)
			}
			for _, e := range ents {
				p := filepath.Join(memoDir, e.Name())
				old, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if data == nil { // cut short
					data = old[:len(old)/2]
				}
				if err := os.WriteFile(p, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	steps := []struct {
		name     string
		change   func()
		wantMemo bool
	}{
		{"cold", func() {}, false},
		{"warm", func() {}, true},
		{"edit SKILL.md", func() {
			time.Sleep(10 * time.Millisecond)
			writeSkill(t, root, "beta", "second, edited")
		}, false},
		{"warm after SKILL.md", func() {}, true},
		{"edit tools.json", func() {
			time.Sleep(10 * time.Millisecond)
			writeTools("Says hi.")
		}, false},
		{"warm after tools.json", func() {}, true},
		{"remove tools.json", func() { os.Remove(tools) }, false},
		{"add a folder", func() { dirs = append(dirs, writeSkill(t, root, "gamma", "third")) }, false},
		{"warm after add", func() {}, true},
		{"remove a folder", func() {
			os.RemoveAll(dirs[0])
			dirs = dirs[1:]
		}, false},
		{"warm after remove", func() {}, true},
		{"rename a folder", func() {
			to := filepath.Join(root, "delta")
			if err := os.Rename(dirs[1], to); err != nil {
				t.Fatal(err)
			}
			dirs[1] = to
		}, false},
		{"corrupt memo (cut short)", corrupt(nil), false},
		{"warm after cut", func() {}, true},
		{"corrupt memo (garbage)", corrupt([]byte(memoKind + "\n\xff\xff\xff")), false},
		{"corrupt memo (empty)", corrupt([]byte{}), false},
		{"warm after corruption", func() {}, true},
	}
	for _, s := range steps {
		s.change()
		waitSettled(t, dirs...)
		res, st := Installed(context.Background(), db, dirs, opts)
		if st.Memo != s.wantMemo {
			t.Errorf("%s: served by the memo = %v; want %v (%+v)", s.name, st.Memo, s.wantMemo, st)
		}
		want := parsed(t, dirs)
		for i, r := range res {
			if r.Err != nil || !reflect.DeepEqual(r.Skill, want[i]) {
				t.Errorf("%s: %s = %+v, %v; want %+v", s.name, filepath.Base(r.Dir), r.Skill, r.Err, want[i])
			}
		}
	}
}

// A set with a folder that cannot be read as a skill (broken YAML) has a
// memo too: a call it serves reads only that folder again, so the error
// is the one a fresh parse gives, and the folder fixed names another memo.
func TestInstalledMemoUnreadable(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), FileName)
	a := writeSkill(t, root, "alpha", "first")
	broken := filepath.Join(root, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, skill.FileName), []byte("---\nname: [broken\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirs := []string{a, broken}
	waitSettled(t, dirs...)
	var loads atomic.Int32
	opts := Options{Load: counting(&loads)}
	fresh, _ := Installed(context.Background(), "", dirs, Options{})
	if fresh[1].Err == nil {
		t.Fatal("the broken skill parses; the test cannot tell")
	}
	for i, want := range []bool{false, true, true} {
		loads.Store(0)
		res, st := Installed(context.Background(), db, dirs, opts)
		if st.Memo != want {
			t.Errorf("call %d: served by the memo = %v, want %v (%+v)", i, st.Memo, want, st)
		}
		if want && loads.Load() != 1 {
			t.Errorf("call %d: %d folders parsed; want only the broken one", i, loads.Load())
		}
		if !reflect.DeepEqual(res[0].Skill, fresh[0].Skill) || res[0].Err != nil {
			t.Errorf("call %d: alpha = %+v, %v", i, res[0].Skill, res[0].Err)
		}
		if res[1].Err == nil || res[1].Err.Error() != fresh[1].Err.Error() || res[1].Cached {
			t.Errorf("call %d: broken = %v (cached %v); want today's error %v", i, res[1].Err, res[1].Cached, fresh[1].Err)
		}
	}
	time.Sleep(10 * time.Millisecond)
	writeSkill(t, root, "broken", "fixed now")
	waitSettled(t, dirs...)
	res, st := Installed(context.Background(), db, dirs, opts)
	if st.Memo || res[1].Err != nil || res[1].Skill.Description != "fixed now" {
		t.Errorf("after the fix: memo %v, %+v, %v; want the fixed skill, parsed", st.Memo, res[1].Skill, res[1].Err)
	}
}

// A memo whose first skills decode and a later one does not is no
// answer at all: what it decoded is not left in the results, so a folder
// the index does not hold and that fails to parse now has the zero Skill
// and the error a fresh parse gives, not the memo's metadata.
func TestInstalledMemoCorruptMidway(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), FileName)
	memoDir := filepath.Join(filepath.Dir(db), MemoDirName)
	dirs := []string{writeSkill(t, root, "alpha", "first"), writeSkill(t, root, "beta", "second")}
	waitSettled(t, dirs...)
	if _, st := Installed(context.Background(), db, dirs, Options{}); st.Memo {
		t.Fatalf("the first call was served by a memo: %+v", st)
	}
	ents, err := os.ReadDir(memoDir)
	if err != nil || len(ents) != 1 {
		t.Fatalf("want one memo in %s: %v, %v", memoDir, ents, err)
	}
	// beta's last field cut off; alpha's still decode. No index to look
	// them up in: only parsing answers.
	p := filepath.Join(memoDir, ents[0].Name())
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b[:len(b)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	gone := errors.New("SKILL.md gone")
	opts := Options{ReadOnly: true, Load: func(dir string) (*skill.Skill, error) {
		if dir == dirs[0] {
			return nil, gone
		}
		return skill.Load(dir)
	}}
	res, st := Installed(context.Background(), db, dirs, opts)
	fresh, _ := Installed(context.Background(), "", dirs, opts)
	if st.Memo {
		t.Fatalf("a memo cut short served the call: %+v", st)
	}
	for i := range res {
		if !reflect.DeepEqual(res[i], fresh[i]) {
			t.Errorf("%s = %+v; a fresh parse gives %+v", filepath.Base(dirs[i]), res[i], fresh[i])
		}
	}
}

// A read-only call writes no memo, and a folder without a fingerprint
// (gone by the time it is stat'ed) leaves the set without one.
func TestInstalledMemoNotWritten(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), FileName)
	memoDir := filepath.Join(filepath.Dir(db), MemoDirName)
	dirs := []string{writeSkill(t, root, "alpha", "first")}
	Installed(context.Background(), db, dirs, Options{ReadOnly: true})
	if _, err := os.Stat(memoDir); err == nil {
		t.Errorf("a read-only call wrote %s", memoDir)
	}
	dirs = append(dirs, filepath.Join(root, "gone"))
	Installed(context.Background(), db, dirs, Options{})
	if ents, _ := os.ReadDir(memoDir); len(ents) != 0 {
		t.Errorf("a set with an unreadable folder has %d memos", len(ents))
	}
}

// Every field of Skill and skill.Tool survives the memo as it survives
// the index (JSON), the rare nested ones included.
func TestMemoRoundTrip(t *testing.T) {
	var s Skill
	if err := json.Unmarshal([]byte(`{
		"name": "pdf", "description": "Reads PDFs.", "version": "1.2.0",
		"tools": [{"name": "extract", "description": "Extracts text.", "input_schema": {"type": "object"},
			"output_schema": {"type": "string"}, "runtime": "python", "entrypoint": "scripts/x.py", "handler": "main",
			"timeout_seconds": -1, "dependencies": {"pip": ["pypdf"], "notes": "n"}, "confirmation": {"level": "always", "prompt": "ok?"},
			"source": "tools.json", "format": "skill-tools"}, {"name": "stub", "description": "No script."}],
		"secrets": ["PDF_TOKEN"],
		"permissions": {"filesystem": {"read": ["."]}, "network": {"outbound": ["example.com"]}},
		"require_confirmation_for": ["destructive_writes"],
		"when_to_use": {"mentions": ["pdf"], "priority": 3},
		"host_overrides": [{"host": "claude-code", "config": {"model": "x", "n": 2}}],
		"problems": [{"rule": "r", "severity": "error", "file": "tools.json", "line": 3, "message": "m", "fix": "f", "profile": "universal"}]
	}`), &s); err != nil {
		t.Fatal(err)
	}
	// The third folder could not be read: the memo says so, nothing more.
	res := []Result{{Skill: s}, {Skill: Skill{Name: "bare"}}, {Skill: Skill{Name: "half"}, Err: errors.New("broken YAML")}}
	b, err := encodeMemo(res)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]Skill, len(res))
	known, ok := decodeMemo(memo.NewDecoder(b), len(res), func(i int) *Skill { return &got[i] })
	if !ok {
		t.Fatal("decodeMemo failed")
	}
	for i := range res {
		want := res[i].Skill
		if res[i].Err != nil {
			want = Skill{}
		}
		if known[i] != (res[i].Err == nil) || !reflect.DeepEqual(got[i], want) {
			t.Errorf("skill %d: known %v,\n got %+v\nwant %+v", i, known[i], got[i], want)
		}
	}
	scratch := make([]Skill, len(res)+1)
	at := func(i int) *Skill { return &scratch[i] }
	if _, ok := decodeMemo(memo.NewDecoder(b), len(res)+1, at); ok {
		t.Error("a memo of 3 skills was read for 4")
	}
	for i := range len(b) {
		if _, ok := decodeMemo(memo.NewDecoder(b[:i]), len(res), at); ok {
			t.Errorf("a memo cut at %d of %d bytes was read", i, len(b))
		}
	}
}

// TestMemoCoversFields fails when Skill or skill.Tool gain a field the
// memo does not encode: add it to encodeMemo and decodeMemo and bump
// memoKind's version.
func TestMemoCoversFields(t *testing.T) {
	fields := func(v any) (names []string) {
		for f := range reflect.TypeOf(v).Fields() {
			if f.IsExported() {
				names = append(names, f.Name)
			}
		}
		return names
	}
	for _, c := range []struct {
		v    any
		want string
	}{
		{Skill{}, "Name Description Version Tools Secrets Permissions RequireConfirmation WhenToUse HostOverrides Problems"},
		{skill.Tool{}, "Name Description InputSchema OutputSchema Runtime Entrypoint Handler TimeoutSeconds Dependencies Confirmation Source Format"},
	} {
		if got := strings.Join(fields(c.v), " "); got != c.want {
			t.Errorf("%T has the fields %s; the memo encodes %s", c.v, got, c.want)
		}
	}
}

// A memo that claims more tools or names than its bytes could hold is
// no answer, refused before anything is allocated for them: a corrupt or
// crafted memo of a large set (bounded at 64 KiB a folder) must not make
// a listing allocate gigabytes.
func TestDecodeMemoHostileCount(t *testing.T) {
	const pad = 1 << 20
	for _, c := range []struct {
		name  string
		count func(e *memo.Encoder)
	}{
		{"tools", func(e *memo.Encoder) { e.Num(pad) }},
		{"secrets", func(e *memo.Encoder) { e.Num(0); e.Num(pad) }},
	} {
		var e memo.Encoder
		e.Num(1)
		e.Num(1) // known
		e.Str("name")
		e.Str("description")
		e.Str("")
		c.count(&e)
		b := append(e.B, make([]byte, pad)...)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var s Skill
		if _, ok := decodeMemo(memo.NewDecoder(b), 1, func(int) *Skill { return &s }); ok {
			t.Errorf("%s: a memo of %d empty bytes was read", c.name, pad)
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 24*uint64(len(b)) {
			t.Errorf("%s: decoding a %d byte memo allocated %d bytes", c.name, len(b), got)
		}
	}
}

// What is read of a folder changed just before the call is not
// remembered, in the index or a memo: a file written again within its
// file system's timestamp granularity of the read (a clock tick, or a
// second on some) can keep its size, mtime, inode and ctime, and the
// remembered metadata would be served for it from then on. Once the
// folder has settled, it is.
func TestInstalledUnsettled(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), FileName)
	memoDir := filepath.Join(filepath.Dir(db), MemoDirName)
	dirs := []string{writeSkill(t, root, "alpha", "first")}
	for range 2 {
		res, st := Installed(context.Background(), db, dirs, Options{})
		if res[0].Err != nil || st.Hits != 0 || st.Memo {
			t.Fatalf("a folder just written: %+v, %+v; want parsed, no hits", res[0], st)
		}
		if ents, _ := os.ReadDir(memoDir); len(ents) != 0 {
			t.Fatalf("a folder just written left %d memos", len(ents))
		}
	}
	waitSettled(t, dirs...)
	if _, st := Installed(context.Background(), db, dirs, Options{}); st.Hits != 0 || !st.Wrote {
		t.Errorf("settled, first call: %+v; want a miss, written", st)
	}
	if _, st := Installed(context.Background(), db, dirs, Options{}); !st.Memo {
		t.Errorf("settled, second call: %+v; want the memo", st)
	}
}
