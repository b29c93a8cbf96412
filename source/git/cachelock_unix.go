//go:build unix

package git

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// lockCache takes the lock every skillpm process honours on the cached
// repository dir, an flock on dir+".lock": exclusive for what writes to
// it (a fetch), shared for what only reads. It waits while another
// process holds it, until ctx is done. The kernel drops the lock of a
// process that dies, so a killed run never leaves it held.
func lockCache(ctx context.Context, dir string, exclusive bool) (func(), error) {
	f, err := os.OpenFile(dir+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("git cache lock: %w", err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	for delay := 5 * time.Millisecond; ; delay = min(delay*2, 250*time.Millisecond) {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil // closing the file releases the lock
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("git cache lock %s: %w", f.Name(), err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("git cache: another skillpm run holds %s: %w", f.Name(), ctx.Err())
		case <-time.After(delay):
		}
	}
}
