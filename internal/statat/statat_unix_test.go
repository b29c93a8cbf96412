//go:build linux || darwin

package statat

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// sameSys checks that Sys carries os.Stat's inode, device, size, mode and
// times: the index fingerprint reads the inode and the status-change time.
func sameSys(t *testing.T, name string, got, want fs.FileInfo) {
	t.Helper()
	g, ok := got.Sys().(*syscall.Stat_t)
	if !ok {
		t.Fatalf("Stat(%q).Sys() is %T; want *syscall.Stat_t", name, got.Sys())
	}
	w := want.Sys().(*syscall.Stat_t)
	if g.Dev != w.Dev || g.Ino != w.Ino || g.Mode != w.Mode || g.Size != w.Size || modTime(g) != modTime(w) || ctime(g) != ctime(w) {
		t.Errorf("Stat(%q).Sys() = %+v; want %+v", name, *g, *w)
	}
	gi, gc, gok := ChangeID(got)
	wi, wc, wok := ChangeID(want)
	if gi != wi || gc != wc || !gok || !wok || gc == 0 {
		t.Errorf("ChangeID(Stat(%q)) = %d, %d, %v; os.Stat's is %d, %d, %v", name, gi, gc, gok, wi, wc, wok)
	}
}

// A modification time outside what int64 nanoseconds hold (before 1678,
// after 2262: touch, utimes and archives can set one) is os.Stat's to
// the nanosecond, ModTime == ModTime.
func TestStatModTimeOutOfNanoRange(t *testing.T) {
	root := t.TempDir()
	d, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for i, mtime := range []time.Time{
		time.Date(2300, 1, 2, 3, 4, 5, 123456789, time.UTC),
		time.Date(1650, 1, 2, 3, 4, 5, 987654321, time.UTC),
		time.Date(2026, 11, 27, 11, 0, 0, 1, time.UTC),
	} {
		name := fmt.Sprintf("f%d", i)
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		// Not os.Chtimes: it passes the time as int64 nanoseconds.
		ts, err := unix.TimeToTimespec(mtime)
		if err != nil {
			continue // a 32-bit time_t
		}
		if err := unix.UtimesNano(p, []unix.Timespec{ts, ts}); err != nil {
			t.Fatal(err)
		}
		want, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		if got.ModTime() != want.ModTime() {
			t.Errorf("Stat(%q).ModTime() = %v; os.Stat's is %v (set %v)", name, got.ModTime(), want.ModTime(), mtime)
		}
		sameSys(t, name, got, want)
	}
}
