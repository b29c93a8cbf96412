package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillpm/skillpm/skill"
	bolt "go.etcd.io/bbolt"
)

// writeSkill creates a skill folder named name under root.
func writeSkill(t testing.TB, root, name, desc string) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := fmt.Sprintf("---\nname: %s\ndescription: %s\nversion: 1.0.0\nsecrets:\n  required:\n    - name: %s_TOKEN\n      usage: env\n---\n\n# %s\n", name, desc, "X", name)
	if err := os.WriteFile(filepath.Join(dir, skill.FileName), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// waitSettled waits until what is read of dirs may be remembered
// (Fingerprint.settled).
func waitSettled(t testing.TB, dirs ...string) {
	t.Helper()
	fps, errs := fingerprints(dirs, nil)
	for i := range fps {
		if errs[i] != nil {
			continue
		}
		for !fps[i].settled(time.Now().UnixNano()) {
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// counting wraps skill.Load and counts the folders it parses.
func counting(n *atomic.Int32) func(string) (*skill.Skill, error) {
	return func(dir string) (*skill.Skill, error) {
		n.Add(1)
		return skill.Load(dir)
	}
}

func TestInstalledHitAndMiss(t *testing.T) {
	root := t.TempDir()
	db := filepath.Join(t.TempDir(), "sub", FileName)
	a := writeSkill(t, root, "alpha", "first")
	b := writeSkill(t, root, "beta", "second")
	dirs := []string{a, b}
	var parsed atomic.Int32
	opts := Options{Load: counting(&parsed)}

	steps := []struct {
		name       string
		change     func()
		wantParsed int32
		wantHits   int
		wantDesc   string // of beta
	}{
		{"cold", func() {}, 2, 0, "second"},
		{"warm", func() {}, 0, 2, "second"},
		{"edit SKILL.md", func() {
			time.Sleep(10 * time.Millisecond) // a distinct mtime
			writeSkill(t, root, "beta", "second, edited")
		}, 1, 1, "second, edited"},
		{"add tools.json", func() {
			if err := os.WriteFile(filepath.Join(b, skill.ToolsFileName), []byte(`[{"name":"t","description":"d","script":"t.sh"}]`), 0o644); err != nil {
				t.Fatal(err)
			}
		}, 1, 1, "second, edited"},
		{"warm again", func() {}, 0, 2, "second, edited"},
	}
	for _, s := range steps {
		s.change()
		waitSettled(t, dirs...)
		parsed.Store(0)
		res, st := Installed(context.Background(), db, dirs, opts)
		if got := parsed.Load(); got != s.wantParsed {
			t.Errorf("%s: parsed %d folders; want %d", s.name, got, s.wantParsed)
		}
		if st.Hits != s.wantHits {
			t.Errorf("%s: hits = %d; want %d (stats %+v)", s.name, st.Hits, s.wantHits, st)
		}
		if got := res[1].Skill.Description; got != s.wantDesc {
			t.Errorf("%s: beta description = %q; want %q", s.name, got, s.wantDesc)
		}
		if got, want := res[0].Skill.Secrets, []string{"X_TOKEN"}; len(got) != 1 || got[0] != want[0] {
			t.Errorf("%s: secrets = %v; want %v", s.name, got, want)
		}
	}
	res, _ := Installed(context.Background(), db, dirs, opts)
	if got := len(res[1].Skill.Tools); got != 1 {
		t.Errorf("tools of beta from the index = %d; want 1", got)
	}
}

func TestInstalledCorruptRebuilds(t *testing.T) {
	cases := []struct {
		name string
		data []byte
	}{
		{"garbage", []byte("this is not a bbolt file, not at all, and it is long enough to have a header")},
		{"empty", nil},
		{"zeros", make([]byte, 64<<10)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			db := filepath.Join(t.TempDir(), FileName)
			if err := os.WriteFile(db, c.data, 0o600); err != nil {
				t.Fatal(err)
			}
			dirs := []string{writeSkill(t, root, "alpha", "first")}
			waitSettled(t, dirs...)
			res, st := Installed(context.Background(), db, dirs, Options{})
			if res[0].Err != nil || res[0].Skill.Name != "alpha" {
				t.Fatalf("result = %+v; want alpha parsed", res[0])
			}
			if !errors.Is(st.ReadErr, ErrCorrupt) {
				t.Errorf("ReadErr = %v; want ErrCorrupt", st.ReadErr)
			}
			if !st.Rebuilt || !st.Wrote {
				t.Errorf("stats = %+v; want rebuilt and written", st)
			}
			_, st = Installed(context.Background(), db, dirs, Options{})
			if st.Hits != 1 || st.ReadErr != nil {
				t.Errorf("after rebuild: stats = %+v; want 1 hit", st)
			}
		})
	}
}

func TestInstalledLockedFallsBack(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(t.TempDir(), FileName)
	dirs := []string{writeSkill(t, root, "alpha", "first")}
	waitSettled(t, dirs...)
	if _, st := Installed(context.Background(), path, dirs, Options{}); !st.Wrote {
		t.Fatalf("first run did not write: %+v", st)
	}
	// A writer in "another process": bbolt's exclusive flock.
	w, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	writeSkill(t, root, "beta", "second")
	dirs = append(dirs, filepath.Join(root, "beta"))
	start := time.Now()
	res, st := Installed(context.Background(), path, dirs, Options{Timeout: 20 * time.Millisecond})
	if time.Since(start) > 2*time.Second {
		t.Errorf("fallback took %s", time.Since(start))
	}
	if !errors.Is(st.ReadErr, ErrLocked) || !errors.Is(st.WriteErr, ErrLocked) {
		t.Errorf("stats = %+v; want ReadErr and WriteErr ErrLocked", st)
	}
	for i, want := range []string{"alpha", "beta"} {
		if got := res[i].Skill.Name; got != want {
			t.Errorf("res[%d].Name = %q; want %q", i, got, want)
		}
	}
}

func TestInstalledEdgeCases(t *testing.T) {
	root := t.TempDir()
	good := writeSkill(t, root, "alpha", "first")
	broken := filepath.Join(root, "broken")
	if err := os.MkdirAll(broken, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, skill.FileName), []byte("no frontmatter\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(root, "gone")
	path := filepath.Join(t.TempDir(), FileName)

	waitSettled(t, good, broken)
	res, st := Installed(context.Background(), path, []string{good, broken, gone}, Options{})
	if res[0].Err != nil {
		t.Errorf("good: %v", res[0].Err)
	}
	if res[1].Err == nil {
		t.Errorf("broken: err = nil; want a parse error")
	}
	if res[2].Err == nil {
		t.Errorf("gone: err = nil; want not exist")
	}
	if st.Misses != 2 {
		t.Errorf("misses = %d; want 2", st.Misses)
	}

	// Disabled and read-only indexes never create the file.
	other := filepath.Join(t.TempDir(), FileName)
	if _, st := Installed(context.Background(), "", []string{good}, Options{}); st.Wrote {
		t.Errorf("empty path wrote the index")
	}
	if _, st := Installed(context.Background(), other, []string{good}, Options{ReadOnly: true}); st.Wrote {
		t.Errorf("ReadOnly wrote the index")
	}
	if _, err := os.Stat(other); err == nil {
		t.Errorf("ReadOnly created %s", other)
	}

	// A removed skill is pruned on the next write.
	if err := os.RemoveAll(good); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, writeSkill(t, root, "beta", "b"))
	Installed(context.Background(), path, []string{filepath.Join(root, "beta")}, Options{})
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(BucketInstalled).Get([]byte(good)); v != nil {
			t.Errorf("record of the removed skill was kept")
		}
		return nil
	})
}

func TestInstalledOtherFormat(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(t.TempDir(), FileName)
	dirs := []string{writeSkill(t, root, "alpha", "first")}
	waitSettled(t, dirs...)
	Installed(context.Background(), path, dirs, Options{})
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { return tx.Bucket(BucketMeta).Put(keyFormat, []byte("0")) })
	db.Close()
	// Without the memo of the set, which would answer without the index.
	if err := os.RemoveAll(filepath.Join(filepath.Dir(path), MemoDirName)); err != nil {
		t.Fatal(err)
	}
	_, st := Installed(context.Background(), path, dirs, Options{})
	if !errors.Is(st.ReadErr, ErrFormat) || !st.Wrote {
		t.Errorf("stats = %+v; want ErrFormat and a rewrite", st)
	}
	if _, st = Installed(context.Background(), path, dirs, Options{}); st.Hits != 1 {
		t.Errorf("after rewrite: stats = %+v; want a hit", st)
	}
}
