package toolrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A confined run's private folders live in one folder per user under the
// system temp folder, $TMPDIR/skillpm-UID, so that those of a skillpm that
// was killed (SIGKILL runs no cleanup) can be found without reading the
// whole of /tmp. Each run gets run-XXXX in it, holding:
//
//	lock        locked (flock) by the skillpm that owns the run, until it
//	            removes the folder
//	tmp/        the handler's TMPDIR, the only part the sandbox grants
//	proxy.sock  the filtering proxy's socket, for outbound hosts
//
// The handler cannot reach the lock, so it cannot make its own folder
// look abandoned. The kernel drops a dead process's locks: a run folder
// whose lock can be taken belongs to no one and is removed by the next
// skillpm that sweeps (once per command, see Sandbox).

const (
	runPrefix = "run-"
	runLock   = "lock"
	runTmp    = "tmp"
	// staleAfter spares the folders younger than this: their owner may
	// be between creating the folder and locking it.
	staleAfter = time.Minute
)

// runFolder is one run's private folder.
type runFolder struct {
	dir  string   // run-XXXX
	lock *os.File // nil where the folder lives outside the per-user folder
}

// tmp is the handler's TMPDIR.
func (r runFolder) tmp() string { return filepath.Join(r.dir, runTmp) }

// remove removes the folder, then gives up its lock.
func (r runFolder) remove() {
	removeTree(r.dir)
	if r.lock != nil {
		r.lock.Close()
	}
}

// removeTree removes dir and everything in it, like os.RemoveAll, also
// where the handler took the permissions away (a folder of mode 000
// cannot be listed or emptied): such folders are made 0700 first. It
// follows no link.
func removeTree(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	var open func(string)
	open = func(d string) {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			return
		}
		if fi.Mode().Perm()&0o700 != 0o700 {
			os.Chmod(d, 0o700)
		}
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.IsDir() {
				open(filepath.Join(d, e.Name()))
			}
		}
	}
	open(dir)
	return os.RemoveAll(dir)
}

// userTempRoot returns $TMPDIR/skillpm-UID, created if missing. It must
// be a folder (not a link) of this user that no one else may write to:
// on a shared /tmp another user could have created the name first, and
// such a folder is not used.
func userTempRoot() (string, error) {
	root := filepath.Join(os.TempDir(), "skillpm-"+strconv.Itoa(os.Getuid()))
	if err := os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s is not a private folder of this user", root)
	}
	return root, nil
}

// newRunFolder creates a run's private folder, locked, with its tmp/.
// Where the per-user folder cannot be used it falls back to an unlocked
// folder in the system temp folder, which a crash leaves behind.
func newRunFolder() (runFolder, error) {
	root, err := userTempRoot()
	if err != nil {
		dir, err := os.MkdirTemp("", "skillpm-"+runPrefix)
		if err != nil {
			return runFolder{}, err
		}
		r := runFolder{dir: dir}
		if err := os.Mkdir(r.tmp(), 0o700); err != nil {
			r.remove()
			return runFolder{}, err
		}
		return r, nil
	}
	dir, err := os.MkdirTemp(root, runPrefix)
	if err != nil {
		return runFolder{}, err
	}
	r := runFolder{dir: dir}
	r.lock, err = os.OpenFile(filepath.Join(dir, runLock), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = lockFile(r.lock, true)
	}
	if err == nil {
		err = os.Mkdir(r.tmp(), 0o700)
	}
	if err != nil {
		r.remove()
		return runFolder{}, err
	}
	return r, nil
}

// sweepRunFolders removes the run folders under root whose owner is gone:
// those whose lock can be taken, and those older than staleAfter that
// have no lock (their owner died before locking). It reads root only,
// follows no link, skips what is not this user's, and spares folders
// younger than staleAfter. It returns how many it removed.
func sweepRunFolders(root string, now time.Time) int {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), runPrefix) {
			continue // a link or a file: not ours to follow or remove
		}
		dir := filepath.Join(root, e.Name())
		if abandoned(dir, now) {
			removeTree(dir)
			removed++
		}
	}
	return removed
}

// abandoned reports whether the run folder dir belongs to no running
// skillpm: its lock can be taken (it is given up again at once; the owner
// is gone, so no one else wants it but another sweeper), or it has none.
func abandoned(dir string, now time.Time) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || !ownedByMe(fi) || now.Sub(fi.ModTime()) < staleAfter {
		return false
	}
	f, err := openNoFollow(filepath.Join(dir, runLock))
	if errors.Is(err, fs.ErrNotExist) {
		return true // died between creating the folder and its lock
	}
	if err != nil {
		return false
	}
	defer f.Close()
	lfi, err := f.Stat()
	if err != nil || !lfi.Mode().IsRegular() || !ownedByMe(lfi) {
		return false
	}
	return lockFile(f, false) == nil
}
