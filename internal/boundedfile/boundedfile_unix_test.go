//go:build unix

package boundedfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/skillpm/skillpm/internal/boundedfile"
)

// A FIFO with no writer and an endless device are refused at once, not
// waited on or read until memory runs out.
func TestReadHostile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "skills.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "skills.lock")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, zero} {
		if _, err := boundedfile.Read(p, 1<<20); !errors.Is(err, boundedfile.ErrNotRegular) {
			t.Errorf("Read(%s): err = %v; want ErrNotRegular", p, err)
		}
	}
}
