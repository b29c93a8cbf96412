package install

import "github.com/skillpm/skillpm/lockfile"

// UpToDate reports whether every target already holds exactly the skills
// of lock, so that Sync would change nothing and write nothing: each
// locked skill's record entry pins its manifest and the folder still has
// the stat fingerprint recorded for it, and no managed skill is to be
// removed. It reads what a warm Sync reads (the records, through
// opts.RecordMemo, and the folders' stat fingerprints), plans with the
// same code, and changes nothing; any doubt (a folder whose files must be
// read to be judged, a journalled swap to settle) is false, for Sync to
// decide. The caller holds the project Lock. opts.Source, Force, DryRun,
// Vet and AfterSwap play no part.
func UpToDate(lock *lockfile.File, opts Options) (bool, error) {
	for _, t := range uniqueDirs(opts.Targets) {
		p, err := plan(t, lock, Options{Owner: opts.Owner, Bounds: opts.Bounds, RecordMemo: opts.RecordMemo})
		if err == nil && p.root == nil {
			// plan checks a target it opens (openTarget); one it did
			// not find is checked here.
			err = opts.Bounds.Check(t)
		}
		ok := err == nil && p.upToDate()
		if p != nil {
			p.cleanup()
		}
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// upToDate reports whether the plan changes nothing: every step keeps a
// skill whose record and folder already agree.
func (p *targetPlan) upToDate() bool {
	for _, s := range p.steps {
		if s.Action != ActionUnchanged || s.checkContent || s.current != nil || s.promoted {
			return false
		}
		// Sync would bring the record entry up to the lock (commit).
		if r := s.rec; r == nil || r.Repository != s.skill.Repository || r.Version != s.skill.Version || r.Pending != nil {
			return false
		}
	}
	return true
}
