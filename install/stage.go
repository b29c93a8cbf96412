package install

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/internal/filesums"
)

// Staging: the new skills written and checked beside their targets.

// prepare stages what every plan needs, then checks the folders of
// unknown content. It changes nothing a user or agent sees.
//
// Each skill is materialised (fetched, unpacked, digest-checked, vetted)
// once, into the staging folder of the first target that needs it; the
// same goroutine then copies that checked tree into the other targets'
// staging folders, so copying overlaps the other skills' downloads.
func prepare(ctx context.Context, plans []*targetPlan, opts Options) error {
	type job struct {
		st    *step
		plans []*targetPlan // the first materialises; the rest copy
	}
	var jobs []*job
	byKey := map[string]*job{}
	for _, p := range plans {
		if !p.needsStaging() {
			continue
		}
		if err := p.openStaging(opts); err != nil {
			return err
		}
		for _, s := range p.steps {
			if s.Action != ActionInstall && s.Action != ActionUpdate {
				continue
			}
			if opts.Source == nil {
				return errors.New("install: no source for skill contents")
			}
			key := s.Name + "@" + s.skill.Manifest
			if j := byKey[key]; j != nil {
				j.plans = append(j.plans, p)
				continue
			}
			byKey[key] = &job{st: s, plans: []*targetPlan{p}}
			jobs = append(jobs, byKey[key])
		}
	}

	// Stage everything in parallel: nothing in the target changes until
	// every skill of every target is staged and verified.
	var mu sync.Mutex // guards every plan's staged
	g, gctx := errgroup.WithContext(ctx)
	par := opts.Parallel
	if par <= 0 {
		par = 8
	}
	g.SetLimit(par)
	for _, j := range jobs {
		g.Go(func() error {
			s, first := j.st, j.plans[0]
			dst := filepath.Join(first.staging, s.Name)
			// A source that unpacks through the registry package reports
			// the sums of the files it wrote: they are not read back.
			sums := &filesums.Recorder{}
			if err := opts.Source.Materialize(filesums.With(gctx, sums), s.skill, dst); err != nil {
				return fmt.Errorf("install %s %s: %w", s.Name, s.Version, err)
			}
			t, entries, err := hashTreeList(dst, sums.Get(dst))
			if err != nil {
				return err
			}
			if err := checkEntries(s.skill, entries); err != nil {
				return err
			}
			if err := first.vet.check(gctx, s.skill, dst); err != nil {
				return fmt.Errorf("install %s %s: %w", s.Name, s.Version, err)
			}
			markTree(opts.RecordMemo, s.skill, t.Digest)
			mu.Lock()
			first.staged[s.Name] = t
			mu.Unlock()
			for _, p := range j.plans[1:] {
				if err := gctx.Err(); err != nil {
					return err
				}
				stat, err := copyTree(dst, entries, p.root, filepath.Join(p.stagingName, s.Name), filepath.Join(p.staging, s.Name))
				if err != nil {
					return fmt.Errorf("install %s %s: %w", s.Name, s.Version, err)
				}
				c := *t
				c.Stat = stat
				mu.Lock()
				p.staged[s.Name] = &c
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, p := range plans {
		if err := p.checkFolders(opts); err != nil {
			return err
		}
	}
	return nil
}

// openStaging creates the target (and its parents) when missing, and a
// staging folder in it.
func (p *targetPlan) openStaging(opts Options) error {
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
	p.staging = filepath.Join(p.dir, p.stagingName)
	p.staged = map[string]*Tree{}
	return nil
}

// checkFolders adopts folders of unknown content only if they already
// hold exactly the locked content.
func (p *targetPlan) checkFolders(opts Options) error {
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
		case s.claimed && !opts.Force:
			return &ClaimError{Dir: dir, Name: s.Name, Version: s.rec.Version, Record: filepath.Join(p.dir, RecordName)}
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
