//go:build !linux

package install

// statTreeFast is not available here: StatTree walks the portable way.
func statTreeFast(string) ([]statEntry, bool) { return nil, false }

// statListed is not available here: statUnchanged walks the folder.
func statListed(string, []string, string, bool) bool { return false }

// fillsDirents is false: statListed is not used here.
func fillsDirents(string) bool { return false }
