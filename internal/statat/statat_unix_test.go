//go:build linux || darwin

package statat

import (
	"io/fs"
	"syscall"
	"testing"
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
