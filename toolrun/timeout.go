package toolrun

import (
	"math"
	"time"
)

// MaxTimeout caps a tool's own timeout when Options.Timeout is not set: a
// skill declaring timeout_seconds: 1000000000 still runs at most this long
// unless the user asks for more.
const MaxTimeout = 10 * time.Minute

// Seconds converts a declared timeout_seconds into a Duration without
// overflowing: zero or less is 0 (no timeout of its own), and a value too
// large for a Duration saturates at the largest one. [Options.Timeout] (or
// MaxTimeout) then caps it.
func Seconds(n int64) time.Duration {
	switch {
	case n <= 0:
		return 0
	case n > int64(math.MaxInt64/time.Second):
		return math.MaxInt64
	}
	return time.Duration(n) * time.Second
}

// runTimeout is how long one run may take. The user's limit (Options.Timeout)
// caps everything; a tool's own timeout applies when it is lower. Without a
// user limit, a tool's own timeout is capped at MaxTimeout, and a tool
// without one gets DefaultTimeout.
func runTimeout(own, limit time.Duration) time.Duration {
	switch {
	case limit > 0 && own > 0:
		return min(own, limit)
	case limit > 0:
		return limit
	case own > 0:
		return min(own, MaxTimeout)
	}
	return DefaultTimeout
}
