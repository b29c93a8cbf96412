//go:build unix

package install

import (
	"context"
	"errors"
	"fmt"
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
	for delay := 10 * time.Millisecond; ; delay = min(delay*2, 250*time.Millisecond) {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return &Lock{f: f}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("lock project: %w", err)
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
	unix.Flock(int(l.f.Fd()), unix.LOCK_UN)
	return l.f.Close()
}
