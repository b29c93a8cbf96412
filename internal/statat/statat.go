// Package statat stats the entries of one folder by their names relative
// to it, where the system can (fstatat on Linux and macOS): the kernel
// then resolves one or two path components per call instead of the
// whole absolute path, which halves the cost of statting a thousand
// skill folders' SKILL.md and tools.json. Elsewhere a Dir stats the
// joined path, as os.Stat does. Either way the answers are os.Stat's:
// links are followed, a missing file's error satisfies
// errors.Is(err, fs.ErrNotExist), and where os.Stat's FileInfo carries a
// *syscall.Stat_t, so does this one's (its device, inode, mode, size
// and times).
package statat

import (
	"io/fs"
	"os"
)

// Dir is an open folder whose entries are stat'ed relative to it.
type Dir struct {
	path string
	f    *os.File
	fd   int // the descriptor stat uses, where it uses one
}

// Open opens the folder at path.
func Open(path string) (*Dir, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &Dir{path: path, f: f, fd: fdOf(f)}, nil
}

// Path returns the path the folder was opened by.
func (d *Dir) Path() string { return d.path }

// ReadDir returns the folder's entries, in the order the system lists
// them.
func (d *Dir) ReadDir() ([]fs.DirEntry, error) { return d.f.ReadDir(-1) }

// Stat returns what os.Stat says of the entry name (a slash-separated
// path relative to the folder, without "..").
func (d *Dir) Stat(name string) (fs.FileInfo, error) {
	return stat(d, name)
}

// Close closes the folder.
func (d *Dir) Close() error { return d.f.Close() }
