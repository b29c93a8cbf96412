//go:build !unix

package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Lock serialises skillpm runs that change one project, with an
// exclusive-create lock file where flock is not available.
type Lock struct{ path string }

// Acquire takes the project lock, waiting while another run holds it.
func Acquire(ctx context.Context, dir string) (*Lock, error) {
	d := filepath.Join(dir, ".skillpm")
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, fmt.Errorf("lock project: %w", err)
	}
	p := filepath.Join(d, "install.lock.pid")
	for {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return &Lock{path: p}, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("lock project: another skillpm run holds %s: %w", p, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Unlock releases the lock.
func (l *Lock) Unlock() error { return os.Remove(l.path) }
