package manager

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/verify"
)

// VerifyOptions configure Verify.
type VerifyOptions struct {
	// Trust reads the registry and applies the trust policy (its
	// Verifier may be nil: digests, blobs and files are still checked).
	Trust *verify.Trust
	// Lock tunes the registry checks (verify.Trust.Lock): Deep downloads
	// and digest-checks every blob.
	Lock verify.LockOptions
}

// Verify checks the project's lock as 'skillpm verify' does: the lock
// against skills.yaml and the manifests it pins (CheckLockFiles,
// CheckPinned), every locked skill against its registry and the trust
// policy (verify.Trust.Lock), and the installed files against the lock.
// Each skill is fetched from, and its trust rule chosen for, the
// repository skills.yaml resolves it to, never the one the lock claims.
// It returns one report per locked skill (and one per wanted skill the
// lock lacks); problems are in the reports, the error is for a check
// that could not run at all.
func (m *Manager) Verify(ctx context.Context, lock *lockfile.File, opts VerifyOptions) ([]*verify.Report, error) {
	var problems []LockProblem
	var le *LockError
	if err := m.CheckLockFiles(lock); errors.As(err, &le) {
		problems = le.Problems
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", m.LockPath(), err)
	}
	var locked []verify.Locked
	var failed []*verify.Report // sourced skills whose source no longer serves the pin
	for _, s := range lock.Skills {
		repo, err := m.Repository(s.Name)
		if err != nil {
			return nil, err
		}
		l := verify.Locked{Skill: s, Repository: repo, Abs: m.Project.Abs(repo)}
		if lockfile.SourceKind(s.Repository) != "" {
			// A sourced skill is checked in its packed copy (from the
			// cache, or packed again from the source at its pin); its
			// policy rule is chosen by the source's name.
			p, err := m.packedFor(ctx, s)
			if err != nil {
				r := &verify.Report{Name: s.Name, Version: s.Version, Repository: s.Repository, Manifest: s.Manifest}
				st := verify.StatusNetwork
				if errors.Is(err, ErrLockMismatch) || errors.Is(err, source.ErrPinMismatch) {
					st = verify.StatusTampered
				}
				r.Fail(st, "%v", err)
				failed = append(failed, r)
				continue
			}
			l.Repository, l.Abs = PolicyName(s.Repository), p.Layout
		}
		locked = append(locked, l)
	}
	reports, err := opts.Trust.Lock(ctx, locked, opts.Lock)
	if err != nil {
		return nil, err
	}
	rels := map[string]*Release{}
	for i, r := range reports {
		if r.Resolved != nil {
			rels[r.Name] = ReleaseOf(locked[i].Repository, r.Resolved)
			if lockfile.SourceKind(locked[i].Skill.Repository) != "" {
				r.Repository = locked[i].Skill.Repository
			}
		}
	}
	if len(failed) > 0 {
		reports = append(reports, failed...)
		sort.SliceStable(reports, func(i, j int) bool { return reports[i].Name < reports[j].Name })
	}
	if err := CheckPinned(m.Project, lock, rels); errors.As(err, &le) {
		problems = append(problems, le.Problems...)
	} else if err != nil {
		return nil, err
	}
	byName := map[string]*verify.Report{}
	for _, r := range reports {
		byName[r.Name] = r
	}
	for _, p := range problems {
		r := byName[p.Skill]
		if r == nil { // a wanted skill with no entry
			r = &verify.Report{Name: p.Skill}
			byName[p.Skill] = r
			reports = append(reports, r)
		}
		r.Fail(verify.StatusTampered, "skills.lock: %s (re-resolve it from skills.yaml: rm skills.lock && skillpm install)", p.Reason)
	}
	states, err := install.StatusMemo(m.TargetDirs(), lock, m.InstallOwner(), m.Bounds(), m.RecordMemoDir)
	if err != nil {
		return nil, err
	}
	trees := map[string]string{} // the locked tree of each skill LockedTree unpacked
	for _, st := range states {
		r := byName[st.Name]
		if r == nil {
			continue
		}
		switch st.State {
		case install.StateOK:
			if st.Claimed != "" && !m.lockedTreeIs(ctx, lock, st, r, trees) {
				continue
			}
			if r.Installed == "" {
				r.Installed = "ok"
			}
		case install.StateNotInstalled:
			r.Installed = "not installed"
			r.Fail(verify.StatusNotInstalled, "%s: locked but not installed (run 'skillpm install')", filepath.Join(st.Target, st.Name))
		case install.StateModified, install.StateOutdated, install.StateMissing:
			r.Installed = string(st.State)
			r.Fail(verify.StatusTampered, "%s: installed files do not match the lock (%s)", filepath.Join(st.Target, st.Name), st.State)
		}
	}
	return reports, nil
}

// lockedTreeIs checks a folder that only its install record vouches for
// (install.SkillStatus.Claimed): the record is a project file, changed
// as easily as the folder, so the tree it names is compared with the
// tree the locked content unpacks to. It reports whether they agree,
// and fails r when they do not, or when the content cannot be read.
// trees keeps the trees unpacked so far (a skill is in every target).
func (m *Manager) lockedTreeIs(ctx context.Context, lock *lockfile.File, st install.SkillStatus, r *verify.Report, trees map[string]string) bool {
	dir := filepath.Join(st.Target, st.Name)
	l := lock.Find(st.Name)
	if l == nil {
		return true // Status reports such a skill as extra, never claimed
	}
	tree, ok := trees[l.Name]
	var err error
	if !ok {
		if tree, err = install.LockedTree(ctx, absSource{m}, *l, m.RecordMemoDir); err == nil {
			trees[l.Name] = tree
		}
	}
	switch {
	case err != nil && errors.Is(err, registry.ErrNetwork):
		r.Fail(verify.StatusNetwork, "%s: %v", dir, err)
	case err != nil && errors.Is(err, registry.ErrIntegrity):
		r.Fail(verify.StatusTampered, "%s: %v", dir, err)
	case err != nil:
		r.Fail(verify.StatusError, "%s: compare with the locked content: %v", dir, err)
	case tree != st.Claimed:
		r.Installed = string(install.StateModified)
		r.Fail(verify.StatusTampered, "%s: installed files are not the locked content, though its install record (%s) says so: restore both from version control, or run 'skillpm install --force'", dir, filepath.Join(st.Target, install.RecordName))
	default:
		return true
	}
	return false
}
