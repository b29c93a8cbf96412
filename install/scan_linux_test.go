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

// namesOf lists dir, sorted, with readNames.
func namesOf(t *testing.T, dir string) []string {
	t.Helper()
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	var buf [4096]byte
	names, ok := readNames(fd, buf[:])
	if !ok {
		t.Fatalf("%s: not listed", dir)
	}
	slices.Sort(names)
	return names
}

// namesAre tells a folder of any size holding exactly the names from
// one missing a name or holding another, in one getdents call or many.
func TestNamesAre(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 3, 40, 400} {
		sub := filepath.Join(dir, fmt.Sprint(n))
		os.Mkdir(sub, 0o755)
		for i := range n {
			os.WriteFile(filepath.Join(sub, fmt.Sprintf("%s-%d", strings.Repeat("x", i%200), i)), nil, 0o644)
		}
		names := namesOf(t, sub)
		if len(names) != n {
			t.Fatalf("%d entries: readNames gave %d", n, len(names))
		}
		type check struct {
			what  string
			names []string
			want  bool
		}
		cases := []check{
			{"the names", names, true},
			{"another name too", slices.Sorted(slices.Values(append(slices.Clone(names), "zz-not-there"))), false},
		}
		if n > 0 {
			cases = append(cases, check{"a name short", names[1:], false})
		}
		for _, c := range cases {
			for _, fills := range []bool{false, true} {
				fd, err := syscall.Open(sub, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
				if err != nil {
					t.Fatal(err)
				}
				var buf [4096]byte
				if got := namesAre(fd, buf[:], c.names, fills); got != c.want {
					t.Errorf("%d entries, %s (fills %v): namesAre = %v, want %v", n, c.what, fills, got, c.want)
				}
				syscall.Close(fd)
			}
		}
	}
	d := openScanDir(dir)
	defer d.close()
	if !d.fillsDirents() {
		t.Logf("%s: not a file system known to fill getdents buffers", dir)
	}
}
