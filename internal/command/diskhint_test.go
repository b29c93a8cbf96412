package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestDiskHint(t *testing.T) {
	dir := t.TempDir()
	blobs := filepath.Join(dir, "cache", "blobs")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(blobs, "(unnamed)")
	gone := filepath.Join(dir, ".skillpm-staging-1", "big", "asset.bin") // removed before the hint is written
	for _, tc := range []struct {
		err        error
		want, more string // "" want: no hint
	}{
		{fmt.Errorf("pull x: read layer: %w", &fs.PathError{Op: "write", Path: file, Err: syscall.ENOSPC}), "holding " + blobs + " is full", "SKILLPM_HOME"},
		{fmt.Errorf("copy: %w", &fs.PathError{Op: "write", Path: gone, Err: syscall.ENOSPC}), "holding " + dir + " is full", "free space"},
		{&fs.PathError{Op: "git write in", Path: dir, Err: syscall.EDQUOT}, "holding " + dir + " is full", "free space"},
		{&fs.PathError{Op: "mkdir", Path: filepath.Join(dir, "x"), Err: syscall.EROFS}, "holding " + dir + " is read-only", "SKILLPM_HOME"},
		// A rename into the cache on a full disk (a new directory block).
		{fmt.Errorf("commit: %w", &os.LinkError{Op: "rename", Old: file, New: filepath.Join(blobs, "sha256-x"), Err: syscall.ENOSPC}), "holding " + blobs + " is full", "free space"},
		{&os.LinkError{Op: "link", Old: file, New: filepath.Join(blobs, "y"), Err: syscall.EEXIST}, "", ""},
		{&fs.PathError{Op: "open", Path: file, Err: syscall.EACCES}, "", ""},
		{fmt.Errorf("copy: %w", syscall.ENOSPC), "", ""}, // no path to name
		{errors.New("no space left on device"), "", ""},
	} {
		got := DiskHint(tc.err)
		if tc.want == "" {
			if got != "" {
				t.Errorf("DiskHint(%v) = %q; want none", tc.err, got)
			}
			continue
		}
		if !strings.Contains(got, tc.want) || !strings.Contains(got, tc.more) {
			t.Errorf("DiskHint(%v) = %q; want it to say %q and %q", tc.err, got, tc.want, tc.more)
		}
		if LightHint(tc.err) != got {
			t.Errorf("LightHint(%v) = %q; want DiskHint's %q", tc.err, LightHint(tc.err), got)
		}
		if LightExitCode(tc.err) != ExitError {
			t.Errorf("LightExitCode(%v) = %d; want %d (an environment problem)", tc.err, LightExitCode(tc.err), ExitError)
		}
	}
}
