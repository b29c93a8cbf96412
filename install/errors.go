package install

import (
	"errors"
	"fmt"
	"path"

	"github.com/skillpm/skillpm/lockfile"
)

// HandAuthoredError reports a folder that skillpm did not install standing
// where a locked skill must go.
type HandAuthoredError struct {
	Dir   string // the folder in the way
	Skill lockfile.Skill
}

func (e *HandAuthoredError) Error() string {
	return fmt.Sprintf("%s was not installed by skillpm, and the lock wants %s %s from %s there; skillpm never overwrites hand-authored skills: rename or move the folder, or remove %s from skills.yaml",
		e.Dir, e.Skill.Name, e.Skill.Version, e.Skill.Repository, e.Skill.Name)
}

// ModifiedError reports a managed skill whose files the user changed.
type ModifiedError struct {
	Dir     string
	Name    string
	Version string
}

// OwnedError reports a skill that another project installed in a shared
// target folder.
type OwnedError struct {
	Dir, Name, Owner string
}

func (e *OwnedError) Error() string {
	who, remove := "the project this folder belongs to", "skillpm remove "+e.Name
	if e.Owner == "user" {
		who, remove = "the user scope (skillpm -g)", "skillpm remove -g "+e.Name
	}
	return fmt.Sprintf("%s was installed by %s, and a skill folder has one owner: run '%s' first, or keep using that one", e.Dir, who, remove)
}

func (e *ModifiedError) Error() string {
	return fmt.Sprintf("%s (%s %s, installed by skillpm) has local edits; keep them by copying the folder elsewhere, or pass --force to discard them", e.Dir, e.Name, e.Version)
}

// ClaimError reports a managed skill folder whose files its install
// record vouches for (the record's tree digest is theirs) but which are
// not what the locked content unpacks to. The record sits in the project
// beside the folder, so a change to both (a pull request, a hostile
// checkout) would otherwise have skillpm keep, and verify pass, files
// it never installed.
type ClaimError struct {
	Dir     string // the skill folder
	Name    string
	Version string
	Record  string // the install record
}

func (e *ClaimError) Error() string {
	return fmt.Sprintf("%s: its install record (%s) says skillpm installed %s %s there, but the folder does not hold the locked content of %s %s; the record was changed with the folder: restore both (git checkout -- %s %s), or run 'skillpm install --force' to replace the folder with the locked content",
		e.Dir, e.Record, e.Name, e.Version, e.Name, e.Version, e.Dir, e.Record)
}

// Unwrap makes errors.Is(err, ErrBadRecord) hold.
func (e *ClaimError) Unwrap() error { return ErrBadRecord }

// ErrUnsafeContent is wrapped by errors about a skill's content that
// skillpm will not put in a project, though it unpacked cleanly.
var ErrUnsafeContent = errors.New("unsafe skill content")

// UnsafeContentError reports a locked skill whose content holds what no
// skill folder may: a .git folder (or file), which git, run anywhere below it,
// takes for a repository of its own and whose config names commands git
// runs (core.fsmonitor, core.pager). skillpm's pack leaves .git out, and
// git never checks one out of a repository.
type UnsafeContentError struct {
	Skill lockfile.Skill
	Path  string // slash-separated, inside the skill
}

func (e *UnsafeContentError) Error() string {
	return fmt.Sprintf("%s %s from %s holds %s: a skill never holds a .git folder or file (git would take it for a repository, and run the commands its config names); the artifact is broken or hostile, nothing was installed: ask its publisher to re-publish it without the folder",
		e.Skill.Name, e.Skill.Version, e.Skill.Repository, e.Path)
}

// Unwrap makes errors.Is(err, ErrUnsafeContent) hold.
func (e *UnsafeContentError) Unwrap() error { return ErrUnsafeContent }

// checkEntries refuses a staged skill whose entries (hashTreeList's)
// hold an entry named .git at any depth: a folder, or a file (a gitlink,
// "gitdir: PATH", names a repository elsewhere just as well), or a link.
func checkEntries(s lockfile.Skill, entries []treeEntry) error {
	for _, e := range entries {
		if isGitDir(path.Base(e.rel)) {
			return &UnsafeContentError{Skill: s, Path: e.rel}
		}
	}
	return nil
}
