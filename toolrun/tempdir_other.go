//go:build !unix

package toolrun

import (
	"errors"
	"io/fs"
	"os"
)

// lockFile is not implemented here: run folders are never found
// abandoned.
func lockFile(f *os.File, wait bool) error {
	if wait {
		return nil
	}
	return errors.New("file locks are not implemented on this platform")
}

// ownedByMe cannot tell here; every folder counts as this user's.
func ownedByMe(fs.FileInfo) bool { return true }

// openNoFollow opens path for reading and writing.
func openNoFollow(path string) (*os.File, error) { return os.OpenFile(path, os.O_RDWR, 0) }
