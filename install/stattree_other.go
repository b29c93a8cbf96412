//go:build !linux

package install

// statTreeFast is not available here: StatTree walks the portable way.
func statTreeFast(string) ([]statEntry, bool) { return nil, false }
