package manager

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/project"
)

// The workflows below are the project commands (install, add, remove,
// update), each over an options struct whose zero value is documented.
// Like Helm's downloader.Manager Build and Update, each holds the project
// lock, reads skills.yaml and skills.lock afresh, resolves only when it
// must, installs, and writes skills.yaml and the lock only once the
// targets match them: a run that fails or is killed leaves the old files
// with the old (or a healable) install.

// InstallOptions configure Install. The zero value installs skills.lock,
// re-resolving it first when skills.yaml changed since it was written
// (keeping the other locked versions), and writes the lock when it
// changed or records other signers.
type InstallOptions struct {
	// Frozen installs skills.lock as is: a missing lock, or one resolved
	// from another skills.yaml, fails with ErrStaleLock, and nothing but
	// the targets is written (not even verified signers).
	Frozen bool
	// RequireLock fails like Frozen on a missing or stale lock instead of
	// re-resolving, but still records verified signers in the lock. An
	// install from a bundle, which cannot resolve, sets it.
	RequireLock bool
	// Force replaces or removes managed skills that have local edits.
	Force bool
	// DryRun plans and reports the changes; it writes nothing.
	DryRun bool
}

// Want is one skill to add: a name and a semver constraint. An empty
// Constraint adds the newest version as ^VERSION.
type Want struct {
	Name       string
	Constraint string
	// Registry, when set, is the registry prefix this skill resolves
	// from (AddOptions.Registry otherwise).
	Registry string
	// Source, when set, is the skills.yaml entry of a skill from a git
	// repository or a local folder (project.Want with Git or Local). A
	// git entry with neither version nor ref is written with ^VERSION of
	// the newest semver tag when the skill has tags, else with the
	// default branch as its ref.
	Source *project.Want
}

// AddOptions configure Add.
type AddOptions struct {
	// Skills are added to skills.yaml (replacing their constraints).
	Skills []Want
	// Registry, when set, is the registry prefix the added skills
	// resolve from; "" keeps the project's default.
	Registry string
	// Force replaces managed skills that have local edits.
	Force bool
	// Edit, when set, changes skills.yaml further once Add has read it
	// under the project lock, before resolving (add --agent records
	// agents: this way); the change is saved with the rest.
	Edit func(*project.Manifest) error
}

// RemoveOptions configure Remove.
type RemoveOptions struct {
	// Names are removed from skills.yaml; each must be in it.
	Names []string
	// Force removes skills even if they have local edits (files the user
	// added are kept).
	Force bool
}

// UpdateOptions configure Update.
type UpdateOptions struct {
	// Names are moved to the newest version skills.yaml allows; empty
	// updates every skill. Each must be locked.
	Names []string
	// Force replaces managed skills that have local edits.
	Force bool
	// DryRun plans and reports the changes; it writes nothing.
	DryRun bool
}

// Result is what a workflow did.
type Result struct {
	// Lock is the lock the targets now hold (would hold, on a dry run).
	Lock *lockfile.File
	// Changes lists each skill's change in each target folder, sorted by
	// folder then name.
	Changes []install.Change
	// Folders are the target folders worked on.
	Folders []string
	// LockWritten and ProjectWritten say whether skills.lock and
	// skills.yaml were written.
	LockWritten, ProjectWritten bool
}

// SkillChange is what happened to one skill across the target folders.
type SkillChange struct {
	Name string
	// Action is install, update or repair when any folder changed the
	// skill (the first such), remove when it was removed, and unchanged
	// when no folder changed it.
	Action install.Action
	// Folders counts the folders where it was installed, updated,
	// repaired or removed.
	Folders int
}

// Skills summarises Changes per skill, sorted by name.
func (r *Result) Skills() []SkillChange {
	var out []SkillChange
	at := map[string]int{}
	for _, c := range r.Changes {
		i, ok := at[c.Name]
		if !ok {
			i = len(out)
			at[c.Name] = i
			out = append(out, SkillChange{Name: c.Name, Action: install.ActionUnchanged})
		}
		if c.Action == install.ActionUnchanged {
			continue
		}
		out[i].Folders++
		if out[i].Action == install.ActionUnchanged || out[i].Action == install.ActionRemove {
			out[i].Action = c.Action
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// UnknownSkillError is a skill named on the command line that the project
// does not have: not in skills.yaml (remove) or not in the lock (update).
type UnknownSkillError struct {
	Name string
	// File is the path of skills.yaml or skills.lock.
	File string
	// Hint says what to do instead.
	Hint string
}

func (e *UnknownSkillError) Error() string { return fmt.Sprintf("%s is not in %s", e.Name, e.File) }

// Install installs skills.lock into the targets (Helm's Build): with the
// zero options a missing or stale lock is re-resolved first.
func (m *Manager) Install(ctx context.Context, opts InstallOptions) (*Result, error) {
	var res *Result
	err := m.withLock(ctx, func() error {
		lock, err := m.ReadLock()
		if err != nil {
			return err
		}
		onDisk, write := lock, false
		if opts.Frozen || opts.RequireLock {
			if lock == nil {
				return fmt.Errorf("%w: %s does not exist (run 'skillpm install' and commit skills.lock)", ErrStaleLock, m.LockPath())
			}
			if !m.Fresh(lock) {
				return fmt.Errorf("%w: %s was resolved from another skills.yaml (run 'skillpm install' and commit skills.lock)", ErrStaleLock, m.LockPath())
			}
		} else if changed, err := m.localChanged(ctx, lock); err != nil {
			return err
		} else if !m.Fresh(lock) || changed {
			fresh, _, err := m.Resolve(ctx, ResolveOptions{Previous: lock})
			if err != nil {
				return err
			}
			lock, write = fresh, !opts.DryRun
		}
		if res, err = m.sync(ctx, lock, opts.Force, opts.DryRun); err != nil {
			return err
		}
		// The lock records who signed what was installed.
		if !opts.Frozen && !opts.DryRun && signersChanged(onDisk, lock) {
			write = true
		}
		if write {
			if err := lockfile.Write(m.LockPath(), lock); err != nil {
				return fmt.Errorf("write %s: %w", m.LockPath(), err)
			}
			res.LockWritten = true
		}
		return nil
	})
	return res, err
}

// Add adds skills to skills.yaml, resolves (moving only them to their
// newest acceptable version), installs, and writes skills.yaml and the
// lock. A skill added without a constraint is written as ^VERSION.
func (m *Manager) Add(ctx context.Context, opts AddOptions) (*Result, error) {
	var res *Result
	err := m.withLock(ctx, func() error {
		prev, err := m.readPrevious()
		if err != nil {
			return err
		}
		if opts.Edit != nil {
			if err := opts.Edit(m.Project); err != nil {
				return err
			}
		}
		var open []string // added without a constraint
		var openSources []string
		for _, w := range opts.Skills {
			if w.Source != nil {
				m.Project.SetSource(w.Name, *w.Source)
				if w.Source.Kind() == project.KindGit && w.Source.Constraint == "" && w.Source.Ref == "" {
					openSources = append(openSources, w.Name)
				}
				open = append(open, w.Name) // resolved afresh
				continue
			}
			if w.Constraint != "" {
				m.Project.Set(w.Name, w.Constraint)
			} else {
				m.Project.Set(w.Name, "*")
				open = append(open, w.Name)
			}
			if w.Registry != "" {
				m.Project.SetRegistry(w.Name, w.Registry)
			} else if opts.Registry != "" {
				m.Project.SetRegistry(w.Name, opts.Registry)
			}
		}
		lock, _, err := m.Resolve(ctx, ResolveOptions{Previous: prev, Upgrade: open})
		if err != nil {
			return err
		}
		for _, n := range open {
			if _, sourced := m.Entry(n); sourced {
				continue
			}
			if s := lock.Find(n); s != nil {
				m.Project.Set(n, "^"+s.Version)
			}
		}
		for _, n := range openSources {
			s := lock.Find(n)
			if s == nil || s.Source == nil {
				continue
			}
			w := m.Project.Skills[n]
			if tag, ok := strings.CutPrefix(s.Source.Ref, "refs/tags/"); ok && tag != "" {
				w.Constraint = "^" + s.Version
			} else if b, ok := strings.CutPrefix(s.Source.Ref, "refs/heads/"); ok {
				w.Ref = b
			}
			m.Project.SetSource(n, w)
		}
		lock.Inputs = m.Project.InputsDigest()
		res, err = m.installAndSave(ctx, lock, opts.Force)
		return err
	})
	return res, err
}

// Remove removes skills from skills.yaml, re-resolves (dependencies go
// when nothing needs them), removes them from the targets, and writes
// skills.yaml and the lock. A name not in skills.yaml fails with an
// UnknownSkillError before anything is written.
func (m *Manager) Remove(ctx context.Context, opts RemoveOptions) (*Result, error) {
	var res *Result
	err := m.withLock(ctx, func() error {
		prev, err := m.readPrevious()
		if err != nil {
			return err
		}
		for _, n := range opts.Names {
			if !m.Project.Remove(n) {
				return &UnknownSkillError{Name: n, File: m.Project.Path(), Hint: "'skillpm list' shows the installed skills; dependencies go when nothing needs them"}
			}
		}
		lock, _, err := m.Resolve(ctx, ResolveOptions{Previous: prev})
		if err != nil {
			return err
		}
		res, err = m.installAndSave(ctx, lock, opts.Force)
		return err
	})
	return res, err
}

// Update re-resolves (Helm's Update), moving the named skills (or all)
// to the newest versions skills.yaml allows, installs, and writes the
// lock. A name not in the lock fails with an UnknownSkillError.
func (m *Manager) Update(ctx context.Context, opts UpdateOptions) (*Result, error) {
	var res *Result
	err := m.withLock(ctx, func() error {
		prev, err := m.readPrevious()
		if err != nil {
			return err
		}
		for _, n := range opts.Names {
			if prev == nil || prev.Find(n) == nil {
				return &UnknownSkillError{Name: n, File: m.LockPath(), Hint: "add it with 'skillpm add " + n + "'"}
			}
		}
		lock, _, err := m.Resolve(ctx, ResolveOptions{Previous: prev, Upgrade: opts.Names, UpgradeAll: len(opts.Names) == 0})
		if err != nil {
			return err
		}
		if res, err = m.sync(ctx, lock, opts.Force, opts.DryRun); err != nil {
			return err
		}
		if !opts.DryRun {
			if err := lockfile.Write(m.LockPath(), lock); err != nil {
				return fmt.Errorf("write %s: %w", m.LockPath(), err)
			}
			res.LockWritten = true
		}
		return nil
	})
	return res, err
}

// sync installs lock (SyncLock) and wraps the outcome in a Result.
func (m *Manager) sync(ctx context.Context, lock *lockfile.File, force, dryRun bool) (*Result, error) {
	r, err := m.SyncLock(ctx, lock, SyncOptions{Force: force, DryRun: dryRun})
	if err != nil {
		return nil, err
	}
	return &Result{Lock: lock, Changes: r.Changes, Folders: m.TargetDirs()}, nil
}

// installAndSave installs lock, then writes skills.yaml and the lock: a
// run that fails before the targets match leaves both files as they were.
func (m *Manager) installAndSave(ctx context.Context, lock *lockfile.File, force bool) (*Result, error) {
	res, err := m.sync(ctx, lock, force, false)
	if err != nil {
		return nil, err
	}
	if err := m.saveProject(lock); err != nil {
		return nil, err
	}
	res.LockWritten, res.ProjectWritten = true, true
	return res, nil
}

// readPrevious reads the lock add, remove and update start from. A lock
// resolved from the current skills.yaml must agree with it
// (CheckLockFiles), or its versions and signers would carry an edit
// over; a stale one only hints which versions to keep, and the new lock
// is resolved and checked afresh.
func (m *Manager) readPrevious() (*lockfile.File, error) {
	prev, err := m.ReadLock()
	if err != nil || prev == nil || !m.Fresh(prev) {
		return prev, err
	}
	if err := m.CheckLockFiles(prev); err != nil {
		return nil, fmt.Errorf("%s: %w", m.LockPath(), err)
	}
	return prev, nil
}

// saveProject writes skills.yaml and skills.lock, the lock last so a
// crash between them leaves a stale lock, which the next run detects.
func (m *Manager) saveProject(lock *lockfile.File) error {
	data, err := m.Project.Marshal()
	if err != nil {
		return err
	}
	if err := lockfile.WriteFileAtomic(m.Project.Path(), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", m.Project.Path(), err)
	}
	if err := lockfile.Write(m.LockPath(), lock); err != nil {
		return fmt.Errorf("write %s: %w", m.LockPath(), err)
	}
	return nil
}

// withLock runs fn holding the project lock. Every input (skills.yaml,
// the lock) is read again once the lock is held: a run that waited must
// not work from what another run changed. A project with no skills.yaml
// yet keeps the one it was opened with (add starts one).
func (m *Manager) withLock(ctx context.Context, fn func() error) error {
	dir := m.Project.Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	l, err := install.Acquire(ctx, dir)
	if err != nil {
		return err
	}
	defer l.Unlock()
	p, err := m.Project.Reload() // m.Project itself when skills.yaml did not change
	switch {
	case err == nil:
		m.Project = p
	case !errors.Is(err, project.ErrNotFound):
		return err
	}
	return fn()
}

// signersChanged reports whether lock records other signers than old.
func signersChanged(old, lock *lockfile.File) bool {
	if old == nil {
		return true
	}
	for _, s := range lock.Skills {
		if o := old.Find(s.Name); o == nil || o.Signer != s.Signer {
			return true
		}
	}
	return false
}
