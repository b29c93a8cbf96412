//go:build unix

package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Lock serialises skillpm runs that change one project. It holds an flock
// on .skillpm/install.lock under dir until Unlock; a second run waits for
// it (until ctx is done), so concurrent installs never interleave.
type Lock struct{ f *os.File }

// Acquire takes the project lock, waiting while another run holds it.
func Acquire(ctx context.Context, dir string) (*Lock, error) {
	f, err := openLockFile(dir, "install.lock", os.O_CREATE|os.O_RDWR)
	if err != nil {
		return nil, err
	}
	return flockWait(ctx, f, nil)
}

// lockTarget takes the lock of one target folder (targetLocks), waiting
// while another run holds it, and saying so on log once.
func lockTarget(ctx context.Context, path, target string, log io.Writer) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, nil // a cache it cannot write: no lock (targetLocks)
	}
	return flockWait(ctx, f, func() {
		if log != nil {
			fmt.Fprintf(log, "waiting for another skillpm run installing into %s\n", target)
		}
	})
}

// flockWait takes an exclusive flock on f, waiting (until ctx is done)
// while another holds it; waiting, when set, is called before the first
// wait.
func flockWait(ctx context.Context, f *os.File, waiting func()) (*Lock, error) {
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 250*time.Millisecond) {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock project: %w", err)
		}
		if waiting != nil {
			waiting()
			waiting = nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock project: another skillpm run holds %s: %w", f.Name(), ctx.Err())
		case <-time.After(delay):
		}
	}
}

// Unlock releases the lock.
func (l *Lock) Unlock() error {
	if l == nil {
		return nil
	}
	unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	return l.f.Close()
}
