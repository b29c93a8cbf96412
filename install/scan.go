package install

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// A warm run's plan and 'skillpm status' check every managed skill folder
// for local edits by its stat fingerprint (RecordSkill.Stat). prescan
// checks them all before the per-skill loop, in parallel (the check is
// system calls, which run on every core), and leaves its verdict on each
// record entry (RecordSkill.scan) for current, which then reads nothing
// for an unedited folder.

// prescanMin is the number of folders below which prescan checks them in
// the caller's goroutine: starting workers costs more than it saves.
const prescanMin = 16

// prescan checks, in parallel, which record entries of target owned by
// owner still match their stat fingerprint (statUnchanged), and marks
// them. An entry it does not mark is checked by current as before. It
// checks each folder by its name in target (scanDir), not by its path;
// with root (the target as plan opened it), only if target is still
// that folder, so that its verdicts hold of the folders plan sees. With
// memoDir, it keeps the folder memo of target there (folders.go).
func prescan(target string, rec *Record, owner string, root *os.Root, memoDir string) {
	todo := make([]*RecordSkill, 0, len(rec.Skills))
	names := make([]string, 0, len(rec.Skills))
	for name, r := range rec.Skills {
		if r.Tree != "" && r.Stat != "" && ownedBy(r, owner) {
			todo = append(todo, r)
			names = append(names, name)
		}
	}
	if len(todo) == 0 {
		return
	}
	d := openScanDir(target)
	defer d.close()
	if root != nil && !d.is(root) {
		return
	}
	fills := d.fillsDirents()
	useMemo := fills && memoDir != ""
	var known folderMemo
	if useMemo {
		known = readFolderMemo(memoDir, target)
	}
	// A folder whose ctime is this old when it is checked is not
	// changed after the check with the same ctime (folders.go).
	since := time.Now().Add(-folderMargin).UnixNano()
	seen := make([]folderSeen, len(todo))
	// The caller checks folders too: one goroutine fewer to start. Each
	// takes the next folder not yet taken, so that the caller, which
	// starts first, is not left waiting for a worker that started late.
	workers := min(runtime.GOMAXPROCS(0), 8, len(todo)/prescanMin+1)
	var taken atomic.Int64
	share := func() {
		var s statScratch
		for {
			i := int(taken.Add(1) - 1)
			if i >= len(todo) {
				return
			}
			r := todo[i]
			k := known[names[i]]
			if k.Stat != r.Stat {
				k.Seen = ""
			}
			r.scan, seen[i] = d.unchanged(&s, target, names[i], r, fills, k.Seen, since)
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(share)
	}
	share()
	wg.Wait()
	if useMemo && !memoHolds(known, todo, names, seen) {
		next := folderMemo{}
		for i, r := range todo {
			if seen[i] != "" {
				next[names[i]] = folderKnown{Stat: r.Stat, Seen: seen[i]}
			}
		}
		writeFolderMemo(memoDir, target, next)
	}
}

// memoHolds reports whether the folder memo known is the one prescan
// would write after finding seen of the folders names (distinct) of the
// record entries todo: exactly the folders with a seen, each with its
// entry's fingerprint. A warm run finds it so, and writes nothing.
func memoHolds(known folderMemo, todo []*RecordSkill, names []string, seen []folderSeen) bool {
	n := 0
	for i, r := range todo {
		if seen[i] == "" {
			continue
		}
		if k, ok := known[names[i]]; !ok || k != (folderKnown{Stat: r.Stat, Seen: seen[i]}) {
			return false
		}
		n++
	}
	return n == len(known)
}

// scanVerdict is what prescan found of a managed folder.
type scanVerdict uint8

const (
	// scanUnknown: not checked, or changed; current reads the folder.
	scanUnknown scanVerdict = iota
	// scanSame: the folder's walk has the recorded stat fingerprint.
	scanSame
	// scanSameFolder: scanSame, found by statListed, which opened the
	// folder as a folder, not through a link: plan and Status need not
	// look at it again.
	scanSameFolder
)

// statUnchanged reports whether the folder dir still has the stat
// fingerprint r records (scanDir.unchanged).
func statUnchanged(dir string, r *RecordSkill, fills bool) bool {
	var s statScratch
	v, _ := cwdScanDir.unchanged(&s, "", dir, r, fills, "", 0)
	return v != scanUnknown
}

// unchanged reports whether the folder name in d, at target/name, still
// has the stat fingerprint r records: by statting only what the record
// lists where the platform allows (statListed; fills: its file system
// fills getdents buffers, fillsDirents; known and since, and seen, as
// there), else by walking it (StatTree).
func (d scanDir) unchanged(s *statScratch, target, name string, r *RecordSkill, fills bool, known folderSeen, since int64) (v scanVerdict, seen folderSeen) {
	if r.Stat == "" {
		return scanUnknown, ""
	}
	if ok, seen := d.statListed(s, name, r.Files, r.Stat, fills, known, since); ok {
		return scanSameFolder, seen
	}
	if st, err := StatTree(filepath.Join(target, name)); err == nil && st == r.Stat {
		return scanSame, ""
	}
	return scanUnknown, ""
}
