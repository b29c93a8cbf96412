//go:build !unix

package git

import "context"

// lockCache is a no-op where flock is not available: runs of one
// process still take turns (Client's per-repository locks), but two
// processes fetching one repository at once may fail and need a retry.
func lockCache(context.Context, string, bool) (func(), error) { return func() {}, nil }
