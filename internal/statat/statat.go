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
	"runtime"
	"sync"
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

// Names returns the names of the folder's entries, in the order the
// system lists them.
func (d *Dir) Names() ([]string, error) { return d.f.Readdirnames(-1) }

// Stat returns what os.Stat says of the entry name (a slash-separated
// path relative to the folder, without "..").
func (d *Dir) Stat(name string) (fs.FileInfo, error) {
	return stat(d, name)
}

// perWorker is the fewest stats worth another goroutine: a stat costs
// a few microseconds, starting and waking a goroutine about as much as
// ten.
const perWorker = 64

// StatEach stats every name as Stat does and calls fn with each answer,
// once per index, in no particular order. The calls are independent
// system calls, several milliseconds for a thousand, so they are spread
// over up to GOMAXPROCS goroutines, each taking a contiguous run of
// names: fn may run on several goroutines at once.
func (d *Dir) StatEach(names []string, fn func(i int, fi fs.FileInfo, err error)) {
	run := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fi, err := stat(d, names[i])
			fn(i, fi, err)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(names)/perWorker)
	if workers <= 1 {
		run(0, len(names))
		return
	}
	chunk := (len(names) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := chunk; lo < len(names); lo += chunk {
		wg.Go(func() { run(lo, min(lo+chunk, len(names))) })
	}
	run(0, chunk)
	wg.Wait()
}

// Close closes the folder.
func (d *Dir) Close() error { return d.f.Close() }
