package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/skill"
)

// Planning: what each target needs, decided before anything is touched.

// step is the planned change of one skill in one target.
type step struct {
	Change
	skill lockfile.Skill
	rec   *RecordSkill // current record entry, if managed
	// checkContent: the folder exists with unknown content; adopt it if it
	// turns out to hold the locked content, else it is in the way.
	checkContent bool
	current      *Tree
	promoted     bool // the record entry was taken from its journal
	// claimed: the folder is the tree its record entry names, a tree
	// not known to be what skillpm unpacked for it (trees.go). Its
	// files are never kept as the user's (put).
	claimed bool
}

type targetPlan struct {
	dir         string
	root        *os.Root // the target, once it exists; every change goes through it
	rec         *Record
	steps       []*step
	staging     string           // set by prepare
	stagingName string           // staging, relative to the target
	staged      map[string]*Tree // skill name -> staged tree
	created     string           // the highest folder prepare created, if any
	done        bool             // commit finished
	swaps       *int             // swaps so far across targets (AfterSwap)
	vet         *vetOnce         // Options.Vet, shared across targets
}

func (p *targetPlan) changes() []Change {
	var out []Change
	for _, s := range p.steps {
		out = append(out, s.Change)
	}
	return out
}

// plan compares one target with the lock, failing on any conflict. It
// returns the plan even with an error, for cleanup to close its root.
func plan(target string, lock *lockfile.File, opts Options) (*targetPlan, error) {
	p := &targetPlan{dir: target, rec: newRecord()}
	if _, err := os.Lstat(target); err == nil {
		if p.root, err = openTarget(target, opts.Bounds); err != nil {
			return p, err
		}
		if p.rec, err = readRecord(p.root, target, opts.RecordMemo); err != nil {
			return p, err
		}
		prescan(target, p.rec, opts.Owner, p.root, opts.RecordMemo)
	}
	rec := p.rec
	wanted := make(map[string]bool, len(lock.Skills))
	for _, s := range lock.Skills {
		if !skill.ValidName(s.Name) {
			return p, fmt.Errorf("install: %q is not a valid skill name; refusing to use it as a folder name", s.Name)
		}
		wanted[s.Name] = true
		dir := filepath.Join(target, s.Name)
		st := &step{Change: Change{Target: target, Name: s.Name, Version: s.Version}, skill: s}
		p.steps = append(p.steps, st)
		r := rec.Skills[s.Name]
		if r != nil {
			st.From = r.Version
		}
		// A folder prescan found unchanged is one (not a link): no
		// need to look at it again.
		if r == nil || r.scan != scanSameFolder {
			fi, err := p.lstat(s.Name)
			switch {
			case errors.Is(err, os.ErrNotExist):
				st.Action = ActionInstall
				continue
			case err != nil:
				return p, fmt.Errorf("inspect %s: %w", dir, err)
			case r != nil && isLink(fi):
				return p, linkError(dir, s.Name, fi)
			case !fi.IsDir():
				return p, &HandAuthoredError{Dir: dir, Skill: s}
			}
		}
		var eff *RecordSkill
		var cur *Tree
		var err error
		if r != nil {
			if eff, cur, err = current(dir, r); err != nil {
				return p, err
			}
		}
		if r != nil && !ownedBy(r, opts.Owner) {
			return p, &OwnedError{Dir: dir, Name: s.Name, Owner: r.Owner}
		}
		if cur != nil && eff != nil && !treeMarked(opts.RecordMemo, s.Name, eff.Manifest, eff.Tree) {
			// The folder was read and is the tree its record names, but
			// only the record says that tree is what skillpm unpacked
			// (trees.go). Of the locked version, it is compared with
			// the locked content after staging; of another, it is
			// replaced whole by the locked version: none of its files
			// is kept as the user's on the record's word (put).
			st.claimed, st.rec, st.current = true, eff, cur
			st.Action, st.checkContent = ActionUpdate, eff.Manifest == s.Manifest
			continue
		}
		if r == nil || (eff == nil && r.Tree == "") {
			// Not in the record (or only journalled, with other
			// content): hand-authored, or installed by a run that
			// crashed before saving the record. Only its content can
			// tell.
			st.Action, st.checkContent, st.current = ActionUpdate, true, cur
			continue
		}
		if eff != nil && eff != r {
			// A run crashed after swapping this skill in: the folder
			// holds what the record journalled.
			rec.Skills[s.Name], st.promoted = eff, true
			st.From = eff.Version
		}
		edited := eff == nil
		if edited {
			eff = r
		}
		st.rec, st.current = eff, cur
		switch {
		case edited && eff.Manifest == s.Manifest && !opts.Force:
			return p, &ModifiedError{Dir: dir, Name: s.Name, Version: eff.Version}
		case edited:
			// Changed since recorded: checked against the new content
			// after staging.
			st.Action, st.checkContent = ActionUpdate, true
		case eff.Manifest == s.Manifest:
			st.Action = ActionUnchanged
		default:
			st.Action = ActionUpdate
		}
	}
	names := make([]string, 0, len(rec.Skills))
	for n, r := range rec.Skills {
		if !wanted[n] && ownedBy(r, opts.Owner) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		r := rec.Skills[n]
		dir := filepath.Join(target, n)
		st := &step{Change: Change{Target: target, Name: n, Action: ActionRemove, From: r.Version}, rec: r}
		fi, err := p.lstat(n)
		switch {
		case errors.Is(err, os.ErrNotExist):
			p.steps = append(p.steps, st) // only the record entry goes
			continue
		case err != nil:
			return p, fmt.Errorf("inspect %s: %w", dir, err)
		case isLink(fi) || !fi.IsDir():
			// Never remove through a link, or files of a folder that
			// is no longer one.
			return p, linkError(dir, n, fi)
		}
		eff, _, err := current(dir, r)
		if err != nil {
			return p, err
		}
		if eff == nil && !opts.Force {
			return p, &ModifiedError{Dir: dir, Name: n, Version: r.Version}
		}
		if eff != nil {
			st.rec = eff
		}
		p.steps = append(p.steps, st)
	}
	sort.SliceStable(p.steps, func(i, j int) bool { return p.steps[i].Name < p.steps[j].Name })
	return p, nil
}

// lstat describes the entry name of the target, without following a link.
func (p *targetPlan) lstat(name string) (os.FileInfo, error) {
	if p.root == nil {
		return nil, os.ErrNotExist
	}
	return p.root.Lstat(name)
}

// current returns the record entry that describes dir as it is: r
// itself, or the install r.Pending journalled when a run crashed after
// swapping it in. It returns nil when dir matches neither: the user
// edited it. File contents are read only when the stat fingerprint
// changed.
func current(dir string, r *RecordSkill) (*RecordSkill, *Tree, error) {
	if r.Tree != "" && (r.scan != scanUnknown || statUnchanged(dir, r, false)) {
		return r, nil, nil
	}
	t, err := HashTree(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("inspect %s: %w", dir, err)
	}
	switch {
	case r.Tree != "" && t.Digest == r.Tree:
		return r, t, nil
	case r.Pending != nil && t.Digest == r.Pending.Tree:
		p := *r.Pending
		p.Stat, p.Pending = t.Stat, nil
		return &p, t, nil
	}
	return nil, t, nil
}
