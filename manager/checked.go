package manager

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
)

// A warm install reads no manifest it has checked before. CheckPinned's
// verdict on one lock entry is a function of the entry's fields, the
// manifest and config its digest pins (immutable: content-addressed),
// the locked versions of its dependencies and skills.yaml's prereleases
// setting. Once an entry passed, an empty file named by the sha256 of
// all of those inputs is left in the cache's "checked" folder; a later
// run that finds the file for an entry skips reading and re-hashing its
// manifest and config. The lock is hostile, so the name covers every
// field the check compares: any edit to the entry, to a dependency's
// version or to skills.yaml's prereleases names another file, which does
// not exist, and the entry is read and checked in full. The folder is
// trusted as much as the rest of the user's cache (the index already
// answers release metadata by digest without re-reading the manifest).

// checkedMemo is the folder of "entry checked" marks.
type checkedMemo struct{ dir string }

// checkedMemo returns the marks folder (Manager.CheckedDir), or nil when
// there is none or manifests come from a bundle.
func (m *Manager) checkedMemo() *checkedMemo {
	if m.CheckedDir == "" || m.PinnedFromRegistry {
		return nil
	}
	return &checkedMemo{dir: m.CheckedDir}
}

// checkedKey names the mark of entry e, read from repo (the repository
// skills.yaml resolves it to): the sha256 of every input of
// CheckPinned's verdict on e, each length-prefixed.
func checkedKey(p *project.Manifest, lock *lockfile.File, e lockfile.Skill, repo string) string {
	h := sha256.New()
	put := func(s string) {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{':'})
		h.Write([]byte(s))
	}
	put("skillpm checked entry v1")
	put(repo)
	put(e.Name)
	put(e.Version)
	put(e.Manifest)
	put(e.Content)
	put(strconv.FormatBool(p.Prereleases))
	put(strconv.Itoa(len(e.Dependencies)))
	for _, d := range e.Dependencies {
		put(d)
		if dep := lock.Find(d); dep != nil {
			put("=" + dep.Version)
		} else {
			put("-")
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// lockCheckedKey names the mark of a whole lock whose entries have the
// marks keys ("" for an entry that is checked every run): the sha256 of
// them all, in order. It is left once every keyed entry passed, so a
// warm run checks one mark instead of one per entry; any change to any
// entry changes its key, and so this one.
func lockCheckedKey(keys []string) string {
	h := sha256.New()
	h.Write([]byte("skillpm checked lock v1\n"))
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{'\n'})
	}
	return "lock-" + hex.EncodeToString(h.Sum(nil))
}

// has reports whether the mark key exists.
func (c *checkedMemo) has(key string) bool {
	if c == nil || key == "" {
		return false
	}
	fi, err := os.Lstat(filepath.Join(c.dir, key))
	return err == nil && fi.Mode().IsRegular()
}

// put leaves the mark key; best effort (a mark not left only means the
// next run reads the manifest again).
func (c *checkedMemo) put(key string) {
	if c == nil {
		return
	}
	p := filepath.Join(c.dir, key)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		if os.MkdirAll(c.dir, 0o755) != nil {
			return
		}
		f, err = os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if err == nil {
		f.Close()
	}
}
