package install

import (
	"path/filepath"
	"runtime"
	"sync"
)

// A warm run's plan and 'skillpm status' check every managed skill folder
// for local edits by its stat fingerprint (RecordSkill.Stat). prescan
// checks them all before the per-skill loop, in parallel (the check is
// system calls, which run on every core), and leaves its verdict on each
// record entry (RecordSkill.statOK) for current, which then reads nothing
// for an unedited folder.

// prescanMin is the number of folders below which prescan checks them in
// the caller's goroutine: starting workers costs more than it saves.
const prescanMin = 16

// prescan checks, in parallel, which record entries of target owned by
// owner still match their stat fingerprint (statUnchanged), and marks
// them. An entry it does not mark is checked by current as before.
func prescan(target string, rec *Record, owner string) {
	var todo []*RecordSkill
	var dirs []string
	for name, r := range rec.Skills {
		if r.Tree != "" && r.Stat != "" && ownedBy(r, owner) {
			todo = append(todo, r)
			dirs = append(dirs, filepath.Join(target, name))
		}
	}
	if len(todo) == 0 {
		return
	}
	fills := fillsDirents(target)
	workers := min(runtime.GOMAXPROCS(0), 8, len(todo)/prescanMin+1)
	if workers <= 1 {
		for i, r := range todo {
			r.statOK = statUnchanged(dirs[i], r, fills)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(todo); i += workers {
				todo[i].statOK = statUnchanged(dirs[i], todo[i], fills)
			}
		})
	}
	wg.Wait()
}

// statUnchanged reports whether the folder dir still has the stat
// fingerprint r records: by statting only what the record lists where the
// platform allows (statListed; fills: its file system fills getdents
// buffers, fillsDirents), else by walking it (StatTree).
func statUnchanged(dir string, r *RecordSkill, fills bool) bool {
	if r.Stat == "" {
		return false
	}
	if statListed(dir, r.Files, r.Stat, fills) {
		return true
	}
	st, err := StatTree(dir)
	return err == nil && st == r.Stat
}
