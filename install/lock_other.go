//go:build !unix

package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Lock serialises skillpm runs that change one project, with an
// exclusive-create lock file where flock is not available.
type Lock struct{ path string }

// Acquire takes the project lock, waiting while another run holds it.
func Acquire(ctx context.Context, dir string) (*Lock, error) {
	p := filepath.Join(dir, ".skillpm", "install.lock.pid")
	for {
		f, err := openLockFile(dir, "install.lock.pid", os.O_CREATE|os.O_EXCL|os.O_WRONLY)
		if err == nil {
			f.Close()
			return &Lock{path: p}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock project: another skillpm run holds %s: %w", p, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil {
		return nil
	}
	return os.Remove(l.path)
}

// lockTarget does nothing here: without flock, a lock file left by a
// crashed run would block every later run into the folder. Runs sharing
// a target but not a project are not serialised on these systems.
func lockTarget(ctx context.Context, path, target string, log io.Writer) (*Lock, error) {
	return nil, nil
}
