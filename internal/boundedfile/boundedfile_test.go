package boundedfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillpm/skillpm/internal/boundedfile"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("skills: {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink("small", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{small, link} {
		got, err := boundedfile.Read(p, 64)
		if err != nil || string(got) != "skills: {}\n" {
			t.Errorf("Read(%s) = %q, %v; want the content", p, got, err)
		}
	}
	if _, err := boundedfile.Read(small, 4); !errors.Is(err, boundedfile.ErrTooLarge) {
		t.Errorf("Read over the limit: err = %v; want ErrTooLarge", err)
	}
	if _, err := boundedfile.Read(filepath.Join(dir, "missing"), 4); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: err = %v; want fs.ErrNotExist", err)
	}
	if _, err := boundedfile.Read(dir, 4); !errors.Is(err, boundedfile.ErrNotRegular) {
		t.Errorf("Read of a folder: err = %v; want ErrNotRegular", err)
	}
}
