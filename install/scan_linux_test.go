package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// namesOf lists dir, sorted, with readNamesOnce (once) or readNames.
func namesOf(t *testing.T, dir string, once bool) []string {
	t.Helper()
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	var names []string
	var ok bool
	if once {
		names, ok = readNamesOnce(fd, buf[:])
	} else {
		names, ok = readNames(fd, buf[:])
	}
	if !ok {
		t.Fatalf("%s: not listed", dir)
	}
	slices.Sort(names)
	return names
}

// readNamesOnce lists a folder of any size as readNames does.
func TestReadNamesOnce(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 3, 40, 400} {
		sub := filepath.Join(dir, fmt.Sprint(n))
		os.Mkdir(sub, 0o755)
		for i := range n {
			os.WriteFile(filepath.Join(sub, fmt.Sprintf("%s-%d", strings.Repeat("x", i%200), i)), nil, 0o644)
		}
		if got, want := namesOf(t, sub, true), namesOf(t, sub, false); !slices.Equal(got, want) || len(got) != n {
			t.Errorf("%d entries: readNamesOnce gave %d names, readNames %d", n, len(got), len(want))
		}
	}
	if !fillsDirents(dir) {
		t.Logf("%s: not a file system known to fill getdents buffers", dir)
	}
}
