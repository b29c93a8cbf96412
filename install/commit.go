package install

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/skillpm/skillpm/lockfile"
)

// Committing: the staged skills swapped into place, and the record saved.

// commit swaps the staged skills into place and saves the record.
func (p *targetPlan) commit(ctx context.Context, opts Options) error {
	dirty := false
	// Journal every swap before the first one, so that a crash leaves
	// each folder at a tree the record knows.
	journal := false
	for _, s := range p.steps {
		if s.Action != ActionInstall && s.Action != ActionUpdate {
			continue
		}
		pend := recordFor(s.skill, p.staged[s.Name], "", opts.Owner)
		if r := p.rec.Skills[s.Name]; r != nil {
			r.Pending = pend
		} else {
			p.rec.Skills[s.Name] = &RecordSkill{Pending: pend}
		}
		journal = true
	}
	if journal {
		if err := p.rec.write(p.root); err != nil {
			return fmt.Errorf("journal the install in %s: %w", p.dir, err)
		}
	}
	for _, s := range p.steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		dir := filepath.Join(p.dir, s.Name)
		switch s.Action {
		case ActionInstall, ActionUpdate:
			moved, err := p.put(s, dir, opts.Force)
			if err != nil {
				return err
			}
			if *p.swaps++; opts.AfterSwap != nil {
				opts.AfterSwap(*p.swaps)
			}
			// A folder moved as staged keeps its entries' sizes, modes
			// and mtimes: the fingerprint taken at staging holds. (Were
			// it off, the next run would only read the files to check.)
			st := p.staged[s.Name].Stat
			if !moved || st == "" {
				if st, err = StatTree(dir); err != nil { // of the final place
					return err
				}
			}
			p.rec.Skills[s.Name] = recordFor(s.skill, p.staged[s.Name], st, opts.Owner)
		case ActionRepair:
			t, err := HashTree(dir)
			if err != nil {
				return err
			}
			p.rec.Skills[s.Name] = recordFor(s.skill, t, t.Stat, opts.Owner)
		case ActionUnchanged:
			r := p.rec.Skills[s.Name]
			if r.Repository != s.skill.Repository || r.Version != s.skill.Version || r.Pending != nil || s.promoted {
				r.Repository, r.Version, r.Pending = s.skill.Repository, s.skill.Version, nil
				dirty = true
			}
			if s.current != nil && s.current.Digest == r.Tree && s.current.Stat != "" && s.current.Stat != r.Stat {
				// Touched but not changed (its files were read to tell):
				// record the new fingerprint, so the next run need not
				// read them again.
				r.Stat, dirty = s.current.Stat, true
			}
		case ActionRemove:
			if err := p.removeSkill(s.Name, s.rec, opts.Force); err != nil {
				return err
			}
			delete(p.rec.Skills, s.Name)
		}
		if s.Action != ActionUnchanged && opts.Log != nil {
			fmt.Fprintf(opts.Log, "%s %s %s in %s\n", s.Action, s.Name, firstNonEmpty(s.Version, s.From), p.dir)
		}
	}
	p.done = true
	if !p.needsStaging() && !dirty {
		return nil // nothing changed; leave the record's bytes alone
	}
	return p.rec.write(p.root)
}

func recordFor(s lockfile.Skill, t *Tree, stat, owner string) *RecordSkill {
	return &RecordSkill{Version: s.Version, Repository: s.Repository, Manifest: s.Manifest, Tree: t.Digest, Stat: stat, Files: t.Files, Owner: owner}
}

// ownedBy reports whether a record entry belongs to owner. Entries without
// an owner, and runs without one, match anything.
func ownedBy(r *RecordSkill, owner string) bool {
	return r.Owner == "" || owner == "" || r.Owner == owner
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
