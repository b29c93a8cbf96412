package manager

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
)

// The queries below answer 'skillpm status', 'why' and 'outdated': they
// read skills.yaml, skills.lock and the targets (outdated also the
// registries) and write nothing.

// ErrNotInstalled is wrapped when a skill asked about is not in the
// project's lock.
var ErrNotInstalled = errors.New("skill not installed")

// WhyResult is why a skill is in the lock.
type WhyResult struct {
	// Name and Version are the skill's, as locked.
	Name, Version string
	// Paths are the dependency paths to it, each from a skill skills.yaml
	// names down to Name (resolve.Solution.Why).
	Paths [][]string
	// Lock is the lock the paths were read from, for the versions along
	// them.
	Lock *lockfile.File
}

// Why reads the dependency paths from skills.yaml to the locked skill
// name, offline. A skill that is not locked (or no lock at all) is an
// error wrapping ErrNotInstalled.
func (m *Manager) Why(ctx context.Context, name string) (*WhyResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lock, err := m.ReadLock()
	if err != nil {
		return nil, err
	}
	var s *lockfile.Skill
	if lock != nil {
		s = lock.Find(name)
	}
	if s == nil {
		return nil, fmt.Errorf("%s is not in %s: %w", name, m.LockPath(), ErrNotInstalled)
	}
	return &WhyResult{Name: name, Version: s.Version, Paths: SolutionFromLock(m.Project, lock).Why(name), Lock: lock}, nil
}

// OutdatedSkill is a locked skill with a newer version published.
type OutdatedSkill struct {
	Name string
	// Current is the locked version.
	Current string
	// Wanted is the newest version skills.yaml allows (Current when
	// none is newer; any version for a skill only a dependency pulls in).
	Wanted string
	// Latest is the newest version published (prereleases only when
	// skills.yaml allows them).
	Latest string
}

// Outdated lists the locked skills that have a newer version than the
// locked one, in lock order. Without a lock it fails with ErrStaleLock.
func (m *Manager) Outdated(ctx context.Context) ([]OutdatedSkill, error) {
	lock, err := m.ReadLock()
	if err != nil {
		return nil, err
	}
	if lock == nil {
		return nil, fmt.Errorf("%s: %w (run 'skillpm install')", m.LockPath(), ErrStaleLock)
	}
	var out []OutdatedSkill
	for _, s := range lock.Skills {
		vs, err := m.Versions(ctx, s)
		if err != nil {
			return nil, err
		}
		sort.Sort(semver.Collection(vs))
		cur, _ := semver.NewVersion(s.Version)
		r := OutdatedSkill{Name: s.Name, Current: s.Version, Wanted: s.Version, Latest: s.Version}
		w := m.Project.Skills[s.Name]
		for _, v := range vs {
			if v.Prerelease() != "" && !m.Project.Prereleases {
				continue
			}
			r.Latest = v.Original()
			if !s.Requested || w.Constraints().Check(v) {
				r.Wanted = v.Original()
			}
		}
		if cur != nil && (r.Latest != s.Version || r.Wanted != s.Version) {
			out = append(out, r)
		}
	}
	return out, nil
}
