//go:build linux || darwin

package index

import (
	"io/fs"
	"syscall"
)

// changeID returns the file's inode number and its status-change time
// (ctime, Unix nanoseconds). Unlike the modification time, ctime cannot be
// set by a program (utimes itself moves it), and any write, rename, link or
// chmod of the file moves it; a file put in place by extracting an archive
// with its recorded mtime still gets a fresh ctime and a new inode.
func changeID(fi fs.FileInfo) (ino uint64, ctime int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return st.Ino, ctimeOf(st), true
}
