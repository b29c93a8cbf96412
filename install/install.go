// Package install materialises locked skills into the folders agents read
// (.claude/skills, .agents/skills, ...), atomically.
//
// Every change is planned before anything is touched: a hand-authored
// folder in the way, or a managed skill the user edited, fails the whole
// run with nothing written. A skill is staged beside its target on the same
// filesystem and swapped into place (renameat2 RENAME_EXCHANGE on Linux),
// so a crash leaves each skill at its old state or its new one; leftovers
// are cleaned and the record repaired by the next run. Each target keeps a
// record of what skillpm installed there (RecordName), which is how managed
// and hand-authored skills are told apart, and how edits are detected.
package install

import (
	"context"
	"io"

	"github.com/skillpm/skillpm/lockfile"
)

// Source writes a locked skill's files into a folder, verifying the
// locked digests. Implementations do the network and cache work.
type Source interface {
	// Materialize writes the files of s into dir, which does not exist.
	Materialize(ctx context.Context, s lockfile.Skill, dir string) error
}

// Options configure Sync. Zero values are documented per field.
type Options struct {
	// Targets are the absolute target folders, in precedence order.
	Targets []string
	// Source provides skill contents. Required when anything must be
	// installed or updated.
	Source Source
	// Force replaces managed skills the user edited, and removes them.
	// Hand-authored skills are never replaced, even with Force.
	Force bool
	// DryRun plans and reports without changing anything.
	DryRun bool
	// Parallel bounds concurrent materialisations; 0 means 8.
	Parallel int
	// Log receives one line per change; nil discards.
	Log io.Writer
	// Owner names who installs ("project", or "user" for the user
	// scope). Skills another owner installed in a shared target (a project
	// at $HOME and -g share ~/.claude/skills) are neither replaced nor
	// removed. Empty owns nothing in particular: every managed skill is
	// fair game.
	Owner string
	// Bounds say where targets may resolve to (through symlinks); a
	// target outside them fails the run before anything is read or
	// written. The zero value checks nothing.
	Bounds Bounds
	// Vet, when set, judges every skill that is installed or updated,
	// once per skill however many targets it goes to, after its content
	// is staged and digest-checked and before anything is swapped into a
	// target (a trust policy's audit: rule). An error fails the run with
	// every target as it was.
	Vet VetFunc
	// AfterSwap, when set, is called after each skill is swapped into
	// place with the number swapped so far in this run (across targets).
	// Tests use it to stop an install at a known point; nil does nothing.
	AfterSwap func(n int)
	// RecordMemo, when set, is a folder of the user's cache where the
	// targets' install records are remembered, checked, by the digest of
	// their bytes (recordmemo.go); "" decodes them every run. Its
	// "trees" folder marks the trees skillpm unpacked (trees.go), and its
	// "locks" folder holds the locks of target folders (targetLocks).
	RecordMemo string
}

// Action is what Sync does to one skill in one target.
type Action string

// Actions.
const (
	ActionInstall   Action = "install"
	ActionUpdate    Action = "update"
	ActionRemove    Action = "remove"
	ActionUnchanged Action = "unchanged"
	ActionRepair    Action = "repair" // the folder already holds the locked content
)

// Change is one planned or performed change.
type Change struct {
	Target  string `json:"target"`
	Name    string `json:"name"`
	Action  Action `json:"action"`
	From    string `json:"from,omitempty"` // previous version
	Version string `json:"version,omitempty"`
}

// Result lists every change, sorted by target then name.
type Result struct {
	Changes []Change `json:"changes"`
}

// Count returns how many changes have action a.
func (r *Result) Count(a Action) int {
	n := 0
	for _, c := range r.Changes {
		if c.Action == a {
			n++
		}
	}
	return n
}

const (
	stagingPrefix = ".skillpm-staging-"
	trashPrefix   = ".skillpm-trash-"
)

// Sync makes every target hold exactly the skills of lock. The caller
// holds the project Lock. Every target is planned, staged and checked
// before the first skill is swapped into place, so a run that fails for
// any skill leaves every target as it was.
func Sync(ctx context.Context, lock *lockfile.File, opts Options) (*Result, error) {
	targets := uniqueDirs(opts.Targets)
	for _, t := range targets {
		if err := opts.Bounds.Check(t); err != nil {
			return nil, err
		}
	}
	// A dry run stages too (and cleans leftovers): it takes the locks.
	unlock, err := targetLocks(ctx, opts.RecordMemo, targets, opts.Log)
	if err != nil {
		return nil, err
	}
	defer unlock()
	plans := make([]*targetPlan, 0, len(targets))
	defer func() {
		for _, p := range plans {
			p.cleanup()
		}
	}()
	swaps := 0
	vet := newVetOnce(opts.Vet)
	for _, t := range targets {
		p, err := plan(t, lock, opts)
		if p != nil {
			p.swaps, p.vet = &swaps, vet
			plans = append(plans, p)
		}
		if err != nil {
			return nil, err
		}
	}
	toStage := plans
	if opts.DryRun {
		// A dry run stages only what it must to answer like the real run:
		// folders of unknown content are judged by the locked content.
		toStage = nil
		for _, p := range plans {
			if p.hasContentChecks() {
				toStage = append(toStage, p)
			}
		}
	}
	if err := prepare(ctx, toStage, opts); err != nil {
		return nil, err
	}
	if !opts.DryRun {
		for _, p := range plans {
			if err := p.commit(ctx, opts); err != nil {
				return nil, err
			}
		}
	}
	res := &Result{}
	for _, p := range plans {
		res.Changes = append(res.Changes, p.changes()...)
	}
	return res, nil
}
