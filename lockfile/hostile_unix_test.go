//go:build unix

package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A repository's skills.lock is hostile: one that links to an endless
// device, is a FIFO with no writer, or is larger than any real lock is
// refused as invalid, naming the file, instead of hanging or filling
// memory.
func TestReadHostileFile(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero", FileName)
	fifo := filepath.Join(dir, "fifo", FileName)
	big := filepath.Join(dir, "big", FileName)
	for _, p := range []string{zero, fifo, big} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxFileSize + 1) // sparse
	f.Close()
	for _, p := range []string{zero, fifo, big} {
		_, err := Read(p)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), p) {
			t.Errorf("Read(%s): err = %v; want ErrInvalid naming the file", p, err)
		}
	}
}
