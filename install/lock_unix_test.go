//go:build unix

package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// chanWriter signals once when a line containing want is written.
type chanWriter struct {
	want string
	once sync.Once
	ch   chan struct{}
}

func (w *chanWriter) Write(p []byte) (int, error) {
	if strings.Contains(string(p), w.want) {
		w.once.Do(func() { close(w.ch) })
	}
	return len(p), nil
}

// Two runs that share a target folder but not a project (-g and a
// project at the home folder, or two projects allowed one folder
// outside) are serialised by a lock on the folder: one run writing the
// record it read before the other changed it would lose the other's
// entries. Run B starts while run A is between swaps; it waits (and
// says so), and both skills end up recorded.
func TestSyncSerialisesRunsSharingATarget(t *testing.T) {
	f := newFixture(t)
	shared := f.targets[:1]
	memo := t.TempDir()
	la, lb := f.lock("alpha@1.0.0", "gamma@1.0.0"), f.lock("beta@1.0.0")
	bDone, bErr := make(chan struct{}), make(chan error, 1)
	waiting := &chanWriter{want: "waiting for another skillpm run", ch: make(chan struct{})}
	var once sync.Once
	opts := Options{Targets: shared, Source: f.src, Owner: "user", RecordMemo: memo, AfterSwap: func(n int) {
		once.Do(func() {
			go func() {
				_, err := Sync(context.Background(), lb, Options{Targets: shared, Source: f.src, Owner: "project", RecordMemo: memo, Log: waiting})
				bErr <- err
				close(bDone)
			}()
			// B either runs to its end now (nothing serialises them) or
			// waits for A.
			select {
			case <-bDone:
			case <-waiting.ch:
			}
		})
	}}
	if _, err := Sync(context.Background(), la, opts); err != nil {
		t.Fatalf("run A: %v", err)
	}
	<-bDone
	if err := <-bErr; err != nil {
		t.Fatalf("run B: %v", err)
	}
	rec, err := ReadRecord(shared[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"alpha", "beta", "gamma"} {
		if rec.Skills[n] == nil {
			t.Errorf("the record lost %s: %v", n, rec.Skills)
		}
	}
}

// A cache the run cannot write (here, a memo folder under a file) only
// leaves the target unlocked, as its memos go unwritten: the install
// still runs.
func TestSyncWithUnwritableMemoFolder(t *testing.T) {
	f := newFixture(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := Options{Targets: f.targets, Source: f.src, RecordMemo: filepath.Join(file, "records")}
	if _, err := Sync(context.Background(), f.lock("alpha@1.0.0"), opts); err != nil {
		t.Fatalf("Sync with an unwritable memo folder: %v", err)
	}
}
