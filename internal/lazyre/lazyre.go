// Package lazyre compiles a regular expression when it is first used
// rather than when its package is initialised: every package a Go
// program links is initialised at start, so a package-level
// regexp.MustCompile costs every skillpm command, including the ones
// that never match it.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr on its first call (panicking,
// as regexp.MustCompile does, when expr is invalid) and returns the same
// *regexp.Regexp on every call. It is safe for concurrent use.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
