package registry

import (
	"os"
	"sync"
	"testing"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if benchRoot != "" {
		os.RemoveAll(benchRoot)
	}
	os.Exit(code)
}

// benchRoot holds what BenchmarkRegistry100 writes, across all its runs.
// It is removed once, when the test binary exits: removing thousands of
// files between runs would make the next run's file creations slower on
// some filesystems (ext4 steps over recently freed inodes), charging the
// benchmark's own cleanup to the pull it measures.
var (
	benchRoot     string
	benchRootOnce sync.Once
)

// benchDir returns a new folder under benchRoot.
func benchDir(tb testing.TB) string {
	tb.Helper()
	benchRootOnce.Do(func() {
		var err error
		if benchRoot, err = os.MkdirTemp("", "skillpm-bench-"); err != nil {
			tb.Fatal(err)
		}
	})
	d, err := os.MkdirTemp(benchRoot, "")
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
