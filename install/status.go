package install

import (
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/lockfile"
)

// State is the condition of one managed skill in one target.
type State string

// States.
const (
	StateOK           State = "ok"
	StateModified     State = "modified"      // files differ from what was installed
	StateMissing      State = "missing"       // recorded but the folder is gone
	StateOutdated     State = "outdated"      // installed version differs from the lock
	StateNotInstalled State = "not-installed" // locked but not installed
	StateExtra        State = "extra"         // installed but no longer locked
)

// SkillStatus is one row of Status.
type SkillStatus struct {
	Target  string `json:"target"`
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	State   State  `json:"state"`
	Detail  string `json:"detail,omitempty"`
	// Claimed, for a skill in StateOK whose files were read and found
	// to be the ones its install record lists, is the tree digest the
	// record gives, when nothing but the record says that tree is the
	// locked content (no mark of this skillpm having unpacked it, see
	// trees.go): the record is a project file, and 'verify' checks
	// such a tree against the locked content (LockedTree). "" when the
	// folder is known to hold what skillpm installed.
	Claimed string `json:"-"`
}

// ClaimedDetail is the Detail of a skill in StateOK that only its
// install record vouches for (SkillStatus.Claimed).
const ClaimedDetail = "its files match the install record, which the project carries, but were not yet checked against the locked content: 'skillpm install' or 'skillpm verify' checks them"

// Status compares every target's managed skills with their record (edits)
// and with lock (which may be nil), reading contents only where the stat
// fingerprint changed.
// Skills another owner installed in a shared target are left out. A
// target outside b, or an invalid record, is an error: Status never reads
// through a link out of the project, nor trusts an edited record.
func Status(targets []string, lock *lockfile.File, owner string, b Bounds) ([]SkillStatus, error) {
	return StatusMemo(targets, lock, owner, b, "")
}

// StatusMemo is Status reading the install records through the memo
// folder memoDir (Options.RecordMemo).
func StatusMemo(targets []string, lock *lockfile.File, owner string, b Bounds, memoDir string) ([]SkillStatus, error) {
	var out []SkillStatus
	for _, t := range targets {
		if err := b.Check(t); err != nil {
			return nil, err
		}
		rec, err := readRecordAt(t, memoDir)
		if err != nil {
			return nil, err
		}
		prescan(t, rec, owner, nil, memoDir)
		seen := make(map[string]bool, len(rec.Skills))
		for name, r := range rec.Skills {
			if !ownedBy(r, owner) {
				continue
			}
			seen[name] = true
			eff, read, state, detail, err := managedState(t, name, r)
			if err != nil {
				return nil, err
			}
			s := SkillStatus{Target: t, Name: name, Version: r.Version, State: state, Detail: detail}
			if eff != nil && lock != nil {
				s.Version = eff.Version
				if l := lock.Find(name); l == nil {
					s.State, s.Detail = StateExtra, "no longer in skills.lock; 'skillpm install' removes it"
				} else if l.Manifest != eff.Manifest {
					s.State, s.Detail = StateOutdated, "the lock wants "+l.Version+"; run 'skillpm install'"
				} else if read && !treeMarked(memoDir, name, eff.Manifest, eff.Tree) {
					s.Claimed = eff.Tree
					s.Detail = ClaimedDetail
				}
			}
			out = append(out, s)
		}
		if lock != nil {
			for _, l := range lock.Skills {
				if !seen[l.Name] {
					out = append(out, SkillStatus{Target: t, Name: l.Name, Version: l.Version, State: StateNotInstalled, Detail: "run 'skillpm install'"})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Target != out[j].Target {
			return out[i].Target < out[j].Target
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// managedState is the state of the managed skill folder name in target
// that the record entry r describes: StateOK with the entry it matches
// (r, or the install r journalled), or StateMissing or StateModified
// and why. read reports that the folder's files were read to match it
// (its stat fingerprint did not vouch for it).
func managedState(target, name string, r *RecordSkill) (eff *RecordSkill, read bool, state State, detail string, err error) {
	if r.scan == scanSameFolder {
		return r, false, StateOK, "", nil // prescan found it an unchanged folder, not a link
	}
	dir := filepath.Join(target, name)
	if fi, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, false, StateMissing, "the folder was deleted; 'skillpm install' restores it", nil
	} else if err == nil && (isLink(fi) || !fi.IsDir()) {
		return nil, false, StateModified, "replaced by a symbolic link or a file; remove it, then run 'skillpm install'", nil
	}
	eff, cur, err := current(dir, r)
	switch {
	case err != nil:
		return nil, false, "", "", err
	case eff == nil:
		return nil, true, StateModified, "local edits; 'skillpm install --force' discards them", nil
	}
	return eff, cur != nil, StateOK, "", nil
}
