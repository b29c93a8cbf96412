//go:build !linux

package install

import "os"

// statTreeFast is not available here: StatTree walks the portable way.
func statTreeFast(string) ([]statEntry, bool) { return nil, false }

// scanDir is a folder whose skill folders statListed checks; here it
// checks none, and statUnchanged walks each folder (StatTree).
type scanDir struct{}

// cwdScanDir resolves names as the process does.
var cwdScanDir scanDir

// openScanDir returns a scanDir for dir.
func openScanDir(string) scanDir { return scanDir{} }

// is reports true: statListed checks nothing here.
func (scanDir) is(*os.Root) bool { return true }

// close does nothing.
func (scanDir) close() {}

// fillsDirents is false: statListed is not used here.
func (scanDir) fillsDirents() bool { return false }

// statScratch is statListed's buffers; it needs none here.
type statScratch struct{}

// statListed is not available here: statUnchanged walks the folder.
func (scanDir) statListed(*statScratch, string, []string, string, bool, folderSeen, int64) (bool, folderSeen) {
	return false, ""
}
