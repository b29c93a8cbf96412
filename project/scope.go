package project

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
)

// Scope is a project as installs see it: its skills.yaml, the folders
// its skills go to, who owns them there and where those folders may
// resolve to, and the cache folders its lock and records are remembered
// in. It needs no registry: 'skillpm status' reads it alone, and
// manager.Manager embeds it.
type Scope struct {
	// Project is skills.yaml. Required.
	Project *Manifest
	// Targets are the absolute install folders; nil means
	// Project.InstallTargets() under the project folder.
	Targets []string
	// Owner names who installs: "" is "project", "user" the user scope
	// (-g). Skills another owner installed in a shared target are
	// neither replaced nor removed (install.Options.Owner).
	Owner string
	// Root is the folder targets must resolve into; "" means the project
	// folder (the home folder for the user scope).
	Root string
	// AllowOutside lists further absolute folders targets may resolve
	// into (the user config's allow_target_outside).
	AllowOutside []string
	// LockMemoDir, when set, is a folder of the user's cache where
	// ReadLock keeps decoded locks under the digest of their bytes
	// (lockfile.ReadMemo); "" decodes the lock every run.
	LockMemoDir string
	// RecordMemoDir, when set, is a folder of the user's cache where the
	// targets' install records are remembered by the digest of their
	// bytes (install.Options.RecordMemo); "" decodes them every run.
	RecordMemoDir string
}

// InstallOwner is the owner installs and status act as.
func (s *Scope) InstallOwner() string {
	if s.Owner == "" {
		return "project"
	}
	return s.Owner
}

// LockPath returns the project's skills.lock path.
func (s *Scope) LockPath() string { return filepath.Join(s.Project.Dir(), lockfile.FileName) }

// Bounds say where the targets may resolve to, for install.Sync and
// install.Status.
func (s *Scope) Bounds() install.Bounds {
	root := s.Root
	if root == "" {
		root = s.Project.Dir()
	}
	return install.Bounds{Root: root, Allow: s.AllowOutside}
}

// TargetDirs returns the absolute install targets.
func (s *Scope) TargetDirs() []string {
	if s.Targets != nil {
		return s.Targets
	}
	var out []string
	for _, t := range s.Project.InstallTargets() {
		out = append(out, filepath.Join(s.Project.Dir(), t))
	}
	return out
}

// TargetOptions are the options installs plan and fill the targets
// with, without a source: install.UpToDate takes them to tell whether an
// install would change anything.
func (s *Scope) TargetOptions() install.Options {
	return install.Options{Targets: s.TargetDirs(), Owner: s.InstallOwner(), Bounds: s.Bounds(), RecordMemo: s.RecordMemoDir}
}

// ReadLock reads the project's lock; nil, nil when there is none.
func (s *Scope) ReadLock() (*lockfile.File, error) {
	l, err := lockfile.ReadMemo(s.LockPath(), s.LockMemoDir)
	if errors.Is(err, lockfile.ErrNotFound) {
		return nil, nil
	}
	return l, err
}

// Fresh reports whether lock was resolved from the current skills.yaml.
func (s *Scope) Fresh(lock *lockfile.File) bool {
	return lock != nil && lock.Inputs == s.Project.InputsDigest()
}

// StatusResult is what Status found.
type StatusResult struct {
	// Lock is the project's skills.lock; nil when there is none.
	Lock *lockfile.File
	// Fresh reports whether Lock was resolved from the current
	// skills.yaml (false without a lock).
	Fresh bool
	// Skills are the managed skills of every target with their state,
	// as install.Status reports them: edited, missing, not installed,
	// other than locked, or ok.
	Skills []install.SkillStatus
}

// Status compares every target's managed skills with their install
// records and with skills.lock. It reads no registry and writes nothing.
func (s *Scope) Status(ctx context.Context) (*StatusResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lock, err := s.ReadLock()
	if err != nil {
		return nil, err
	}
	st, err := install.StatusMemo(s.TargetDirs(), lock, s.InstallOwner(), s.Bounds(), s.RecordMemoDir)
	if err != nil {
		return nil, err
	}
	return &StatusResult{Lock: lock, Fresh: s.Fresh(lock), Skills: st}, nil
}
