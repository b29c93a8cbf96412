// Package source is where skills that are not in an OCI registry come
// from: git repositories (source/git), local folders (source/local) and
// well-known HTTPS indexes. Each kind implements Source, one small
// interface: the versions of a skill, each with an immutable pin, and the
// pinned files exported into a staging folder. Store turns exported files
// into a reproducible OCI artifact (registry.Pack) in an OCI layout under
// skillpm's cache, so that a sourced skill is locked with the same
// manifest and content digests as an OCI skill and installed, verified
// and bundled through the same path.
package source

import (
	"context"
	"errors"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
)

// Entry is one skill as skills.yaml names it from a source.
type Entry struct {
	// Name is the skill's name (its key in skills.yaml); the folder's
	// SKILL.md must carry it.
	Name string
	// Kind is "git", "local" or "wellknown" (project.Kind*).
	Kind string
	// Location is where the kind reads from: a git URL as giturl.Parse
	// makes it, an absolute folder, an https origin.
	Location string
	// Path is the folder inside the location ("" for its root).
	Path string
	// Ref is a git ref asked for instead of versions ("" for none).
	Ref string
	// Repository is the entry's location as skills.lock records it
	// (lockfile.Skill.Repository): git+URL[//PATH], local:PATH (as
	// written, relative to the project), wellknown+ORIGIN.
	Repository string
	// Root is the folder of the project that names the entry: a local
	// entry's Location, links resolved, must stay inside it, and so must
	// a git entry's file:// repository unless the user allows its folder
	// ("" checks nothing: a source the user typed).
	Root string
}

// Candidate is one version of an entry a source offers.
type Candidate struct {
	// Version is the version the source states (a semver tag); nil for
	// an unversioned candidate (a branch, a commit, a local folder),
	// whose version is its SKILL.md's, or 0.0.0.
	Version *semver.Version
	// Pin is the candidate's immutable id: what the lock records and
	// Export is given.
	Pin lockfile.Source
	// Tracked is set for a candidate that follows something movable on
	// purpose (a branch, a local folder): a new pin is an update, not a
	// moved tag.
	Tracked bool
}

// Source is one kind of source. Implementations bound every read in
// size and time and treat what they read as hostile.
type Source interface {
	// Versions lists the candidates of e, at most one per version.
	// An entry whose location or folder does not exist fails with an
	// error wrapping ErrNotFound.
	Versions(ctx context.Context, e Entry) ([]Candidate, error)
	// Export writes the files pin names into dir, which must not exist,
	// through registry.Unpack's checks (no traversal, no escaping links,
	// no devices, size and file-count limits). A pin the source no
	// longer serves as locked (a moved tag, a commit force-pushed away,
	// changed content) fails with an error wrapping ErrPinMismatch.
	Export(ctx context.Context, e Entry, pin lockfile.Source, dir string) error
}

// Errors a caller tells apart.
var (
	// ErrNotFound: the location, folder, ref or skill does not exist.
	ErrNotFound = errors.New("not found")
	// ErrPinMismatch: the source no longer serves what a lock pins.
	ErrPinMismatch = errors.New("the source no longer matches skills.lock")
	// ErrNotSkill: the folder holds no skill, or another skill.
	ErrNotSkill = errors.New("not a skill")
)

// Lister is implemented by a Source that can list the skills a location
// holds (a monorepo), for 'skillpm add' to offer.
type Lister interface {
	// Skills lists the folders under e.Path (relative to the location's
	// root, slash-separated, sorted) that hold a SKILL.md, at e.Ref or
	// the location's default state.
	Skills(ctx context.Context, e Entry) ([]string, error)
}

// Checker is implemented by a Source whose pins need a check before a
// lock's copy is trusted (the lock is hostile): a git branch's commit
// must be on that branch.
type Checker interface {
	// Check fails with an error wrapping ErrPinMismatch when the source
	// does not vouch for pin as e's (a commit that is not on the branch
	// it claims).
	Check(ctx context.Context, e Entry, pin lockfile.Source) error
}
