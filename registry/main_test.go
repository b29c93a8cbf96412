package registry

import (
	"os"
	"path/filepath"
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

// benchRoot holds what BenchmarkRegistry100 writes, across all its runs:
// under the user cache folder, where skillpm's own cache lives (not
// TMPDIR, which skillpm never pulls into), or under $SKILLPM_BENCH_DIR.
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
		dir := os.Getenv("SKILLPM_BENCH_DIR")
		if dir == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				tb.Fatal(err)
			}
			dir = filepath.Join(cache, "skillpm-bench")
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		var err error
		if benchRoot, err = os.MkdirTemp(dir, "run-"); err != nil {
			tb.Fatal(err)
		}
	})
	d, err := os.MkdirTemp(benchRoot, "")
	if err != nil {
		tb.Fatal(err)
	}
	return d
}
