package install

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/internal/filesums"
)

// Staging: the new skills written and checked beside their targets.

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
			if prev, ok := p.shared.get(s.Name, s.skill.Manifest); ok {
				// Another target staged and checked it: copy that.
				stat, err := copyTree(prev.dir, p.root, filepath.Join(p.stagingName, s.Name), dst)
				if err != nil {
					return fmt.Errorf("install %s %s: %w", s.Name, s.Version, err)
				}
				t := *prev.tree
				t.Stat = stat
				results <- out{s.Name, &t}
				return nil
			}
			// A source that unpacks through the registry package reports
			// the sums of the files it wrote: they are not read back.
			sums := &filesums.Recorder{}
			if err := opts.Source.Materialize(filesums.With(gctx, sums), s.skill, dst); err != nil {
				return fmt.Errorf("install %s %s: %w", s.Name, s.Version, err)
			}
			t, err := hashTree(dst, sums.Get(dst))
			if err != nil {
				return err
			}
			if err := p.vet.check(gctx, s.skill, dst); err != nil {
				return fmt.Errorf("install %s %s: %w", s.Name, s.Version, err)
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
	for _, s := range p.steps {
		if t := p.staged[s.Name]; t != nil {
			p.shared.put(s.Name, s.skill.Manifest, stagedSkill{dir: filepath.Join(staging, s.Name), tree: t})
		}
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
