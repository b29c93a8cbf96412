//go:build !linux && !darwin

package statat

import (
	"io/fs"
	"os"
	"path/filepath"
)

// fdOf is unused here: stat joins the path.
func fdOf(*os.File) int { return -1 }

func stat(d *Dir, name string) (fs.FileInfo, error) {
	return os.Stat(filepath.Join(d.path, filepath.FromSlash(name)))
}

// ChangeTime is 0: files have no status-change time here.
func ChangeTime(fs.FileInfo) int64 { return 0 }

// ChangeID is not known here: files have no status-change time.
func ChangeID(fs.FileInfo) (ino uint64, ctime int64, ok bool) { return 0, 0, false }
