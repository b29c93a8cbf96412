//go:build unix

package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillpm/skillpm/registry"
)

// A layout folder from a hostile author may hold what a tarball cannot:
// a blob that is a FIFO (reading it would hang the install), a link
// out of the folder, a device. Open refuses the folder before anything
// reads it.
func TestOpenRejectsHostileFolders(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	lay := func(t *testing.T) (string, string) {
		t.Helper()
		_, lock := setup(t, c)
		out := filepath.Join(t.TempDir(), "bundle")
		if _, err := Export(bg, c, lock, out, ExportOptions{}); err != nil {
			t.Fatal(err)
		}
		d := strings.TrimPrefix(lock.Skills[0].Content, "sha256:")
		return out, filepath.Join(out, "blobs", "sha256", d)
	}
	for _, tc := range []struct {
		name  string
		spoil func(blob string) error
	}{
		{"fifo blob", func(blob string) error {
			os.Remove(blob)
			return syscall.Mkfifo(blob, 0o644)
		}},
		{"symlinked blob", func(blob string) error {
			data, err := os.ReadFile(blob)
			if err != nil {
				return err
			}
			outside := filepath.Join(t.TempDir(), "outside")
			if err := os.WriteFile(outside, data, 0o644); err != nil {
				return err
			}
			os.Remove(blob)
			return os.Symlink(outside, blob)
		}},
		{"symlinked blobs folder", func(blob string) error {
			blobs := filepath.Dir(filepath.Dir(blob))
			moved := filepath.Join(t.TempDir(), "blobs")
			if err := os.Rename(blobs, moved); err != nil {
				return err
			}
			return os.Symlink(moved, blobs)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, blob := lay(t)
			if err := tc.spoil(blob); err != nil {
				t.Fatal(err)
			}
			src, err := Open(c, dir, t.TempDir())
			if err == nil {
				src.Close()
			}
			if !errors.Is(err, ErrBadBundle) {
				t.Errorf("Open: %v; want ErrBadBundle", err)
			}
		})
	}
}

// A bundle named through a link to its folder is checked all the same.
func TestOpenChecksFolderBehindLink(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	_, lock := setup(t, c)
	out := filepath.Join(t.TempDir(), "bundle")
	if _, err := Export(bg, c, lock, out, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(out, link); err != nil {
		t.Fatal(err)
	}
	src, err := Open(c, link, t.TempDir())
	if err != nil {
		t.Fatalf("Open through a link: %v", err)
	}
	src.Close()
	if err := syscall.Mkfifo(filepath.Join(out, "blobs", "sha256", strings.Repeat("0", 64)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(c, link, t.TempDir()); !errors.Is(err, ErrBadBundle) {
		t.Errorf("Open through a link to a folder with a FIFO: %v; want ErrBadBundle", err)
	}
}
