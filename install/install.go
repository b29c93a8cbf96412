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
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/skill"
	"golang.org/x/sync/errgroup"
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
	// AfterSwap, when set, is called after each skill is swapped into
	// place with the number swapped so far in this run (across targets).
	// Tests use it to stop an install at a known point; nil does nothing.
	AfterSwap func(n int)
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
	plans := make([]*targetPlan, 0, len(targets))
	defer func() {
		for _, p := range plans {
			p.cleanup()
		}
	}()
	swaps := 0
	for _, t := range targets {
		p, err := plan(t, lock, opts)
		if p != nil {
			p.swaps = &swaps
			plans = append(plans, p)
		}
		if err != nil {
			return nil, err
		}
	}
	for _, p := range plans {
		// A dry run stages only what it must to answer like the real run:
		// folders of unknown content are judged by the locked content.
		if opts.DryRun && !p.hasContentChecks() {
			continue
		}
		if err := p.prepare(ctx, opts); err != nil {
			return nil, err
		}
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
		if p.rec, err = readRecord(p.root, target); err != nil {
			return p, err
		}
	}
	rec := p.rec
	wanted := map[string]bool{}
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
		var eff *RecordSkill
		var cur *Tree
		if r != nil {
			if eff, cur, err = current(dir, r); err != nil {
				return p, err
			}
		}
		if r != nil && !ownedBy(r, opts.Owner) {
			return p, &OwnedError{Dir: dir, Name: s.Name, Owner: r.Owner}
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
	if r.Tree != "" {
		if st, err := StatTree(dir); err == nil && st == r.Stat {
			return r, nil, nil
		}
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

// prepare creates the target, stages new content and checks folders of
// unknown content. It changes nothing a user or agent sees.
func (p *targetPlan) prepare(ctx context.Context, opts Options) error {
	if !p.needsStaging() {
		return nil
	}
	if _, err := os.Stat(p.dir); errors.Is(err, os.ErrNotExist) {
		top := p.dir
		for d := filepath.Dir(p.dir); d != filepath.Dir(d); d = filepath.Dir(d) {
			if _, err := os.Stat(d); err == nil {
				break
			}
			top = d
		}
		if err := os.MkdirAll(p.dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", p.dir, err)
		}
		p.created = top
	}
	if p.root == nil {
		r, err := openTarget(p.dir, opts.Bounds)
		if err != nil {
			return err
		}
		p.root = r
	}
	cleanLeftovers(p.root)
	var rnd [8]byte
	rand.Read(rnd[:])
	p.stagingName = stagingPrefix + hex.EncodeToString(rnd[:])
	if err := p.root.Mkdir(p.stagingName, 0o700); err != nil {
		return fmt.Errorf("stage in %s: %w", p.dir, err)
	}
	staging := filepath.Join(p.dir, p.stagingName)
	p.staging = staging

	// Stage everything in parallel: nothing in the target changes until
	// every skill of every target is staged and verified.
	g, gctx := errgroup.WithContext(ctx)
	par := opts.Parallel
	if par <= 0 {
		par = 8
	}
	g.SetLimit(par)
	type out struct {
		name string
		tree *Tree
	}
	results := make(chan out, len(p.steps))
	for _, s := range p.steps {
		if s.Action != ActionInstall && s.Action != ActionUpdate {
			continue
		}
		if opts.Source == nil {
			return errors.New("install: no source for skill contents")
		}
		g.Go(func() error {
			dst := filepath.Join(staging, s.Name)
			if err := opts.Source.Materialize(gctx, s.skill, dst); err != nil {
				return fmt.Errorf("install %s %s: %w", s.Name, s.Version, err)
			}
			t, err := HashTree(dst)
			if err != nil {
				return err
			}
			results <- out{s.Name, t}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	close(results)
	p.staged = map[string]*Tree{}
	for r := range results {
		p.staged[r.name] = r.tree
	}

	// Folders of unknown content are adopted only if they already hold
	// exactly the locked content.
	for _, s := range p.steps {
		if !s.checkContent {
			continue
		}
		dir := filepath.Join(p.dir, s.Name)
		cur := s.current
		if cur == nil {
			t, err := HashTree(dir)
			if err != nil {
				return fmt.Errorf("inspect %s: %w", dir, err)
			}
			cur = t
		}
		switch {
		case cur.Digest == p.staged[s.Name].Digest:
			s.Action = ActionRepair
		case s.rec == nil:
			return &HandAuthoredError{Dir: dir, Skill: s.skill}
		case !opts.Force:
			return &ModifiedError{Dir: dir, Name: s.Name, Version: s.rec.Version}
		}
	}
	return nil
}

func (p *targetPlan) hasContentChecks() bool {
	for _, s := range p.steps {
		if s.checkContent {
			return true
		}
	}
	return false
}

func (p *targetPlan) needsStaging() bool {
	for _, s := range p.steps {
		if s.Action != ActionUnchanged {
			return true
		}
	}
	return false
}

// cleanup removes the staging folder, and on failure the folders prepare
// created.
func (p *targetPlan) cleanup() {
	if p.staging != "" {
		p.root.RemoveAll(p.stagingName)
	}
	if p.root != nil {
		p.root.Close()
	}
	if !p.done && p.created != "" {
		removeEmptyDirs(p.created)
	}
}

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
			if err := p.put(s, dir); err != nil {
				return err
			}
			if *p.swaps++; opts.AfterSwap != nil {
				opts.AfterSwap(*p.swaps)
			}
			st, err := StatTree(dir) // fingerprint of the final place
			if err != nil {
				return err
			}
			p.rec.Skills[s.Name] = recordFor(s.skill, p.staged[s.Name], st, opts.Owner)
		case ActionRepair:
			t, err := HashTree(dir)
			if err != nil {
				return err
			}
			p.rec.Skills[s.Name] = recordFor(s.skill, t, t.Stat, opts.Owner)
		case ActionUnchanged:
			if r := p.rec.Skills[s.Name]; r.Repository != s.skill.Repository || r.Version != s.skill.Version || r.Pending != nil || s.promoted {
				r.Repository, r.Version, r.Pending = s.skill.Repository, s.skill.Version, nil
				dirty = true
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
