package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestChmodProcFD: the fallback for kernels without fchmodat2 changes the
// mode of the file an O_PATH descriptor holds, which fchmod refuses, and
// of that file only, whatever its name says by now.
func TestChmodProcFD(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Fchmod(fd, 0o600); err == nil {
		t.Fatal("fchmod of an O_PATH descriptor succeeded; the fallback is not needed")
	}
	// The name now stands for another file: the descriptor's is changed.
	if err := os.Rename(p, filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if e := chmodProcFD(fd, 0o600); e != 0 {
		t.Fatalf("chmodProcFD: %v", e)
	}
	for name, want := range map[string]os.FileMode{"moved": 0o600, "f": 0o644} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %o; want %o", name, fi.Mode().Perm(), want)
		}
	}
}
