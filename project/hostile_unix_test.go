//go:build unix

package project

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A repository's skills.yaml is hostile: one that links to an endless
// device, is a FIFO with no writer, or is over MaxFileSize is refused as
// invalid, naming the file, instead of hanging or filling memory.
func TestLoadHostileFile(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, f func(p string) error) string {
		dir := filepath.Join(root, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := f(filepath.Join(dir, FileName)); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dirs := []string{
		mk("zero", func(p string) error { return os.Symlink("/dev/zero", p) }),
		mk("fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }),
		mk("big", func(p string) error {
			return os.WriteFile(p, []byte("skills: {}\n"+strings.Repeat("#", MaxFileSize)), 0o644)
		}),
	}
	for _, dir := range dirs {
		_, err := Load(dir)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
			t.Errorf("Load(%s): err = %v; want ErrInvalid naming the file", dir, err)
		}
	}
}
