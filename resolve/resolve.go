// Package resolve chooses one version of every skill in a dependency closure.
//
// A skill installs into a folder named after it, so the closure of a
// project's wanted skills must hold exactly one version per name. Resolve
// finds such a choice with PubGrub, the conflict-driven solver of Dart's pub,
// uv and Cargo: it prefers the highest versions (or the locked ones), learns
// the root cause of every conflict so it never explores the same dead end
// twice, and, when no choice exists, returns a *NoSolutionError that explains
// why step by step.
//
// The returned Solution lists every chosen version with its dependencies,
// which is what a lock file records, and answers "why is this skill here"
// (Solution.Why).
//
// The package does no I/O of its own: everything it knows about published
// skills comes from a Source, and every Source answer is cached for the
// duration of one Resolve call.
package resolve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"
)

// ErrNotFound reports that a skill has no published versions at all: the
// name is unknown to the Source. Source implementations wrap it; Resolve
// returns it wrapped with the name when a wanted skill is unknown.
var ErrNotFound = errors.New("skill not found")

// Source answers questions about published skills. Implementations do the
// I/O (registry, index); resolve never does.
type Source interface {
	// Versions returns every published version of name, in any order.
	// An unknown name returns an error wrapping ErrNotFound.
	Versions(ctx context.Context, name string) ([]*semver.Version, error)
	// Dependencies returns the depends_on constraints of one version of name,
	// in any order.
	Dependencies(ctx context.Context, name string, v *semver.Version) ([]Dependency, error)
}

// Dependency is a constraint on the version of one skill, as declared by a
// project (a want) or by a skill version (depends_on).
type Dependency struct {
	// Name is the skill depended on.
	Name string
	// Constraint selects the acceptable versions. Nil accepts any version.
	Constraint *semver.Constraints
	// Raw is the text Constraint was parsed from, shown in messages. If
	// empty, the constraint's canonical form is shown ("any" for a nil
	// Constraint).
	Raw string
}

// NewDependency parses constraint (Masterminds syntax: "^1.2", ">=1.0.0 <2",
// "1.x || 2.x"; empty means any version) into a Dependency on name.
func NewDependency(name, constraint string) (Dependency, error) {
	d := Dependency{Name: name, Raw: constraint}
	if constraint == "" {
		return d, nil
	}
	c, err := semver.NewConstraint(constraint)
	if err != nil {
		return Dependency{}, fmt.Errorf("constraint %q on %s: %w", constraint, name, err)
	}
	d.Constraint = c
	return d, nil
}

// String returns the dependency as "name constraint".
func (d Dependency) String() string {
	return d.Name + " " + d.text()
}

// text returns the constraint as it should appear in messages.
func (d Dependency) text() string {
	switch {
	case d.Raw != "":
		return d.Raw
	case d.Constraint == nil:
		return "any"
	default:
		return d.Constraint.String()
	}
}

// Options tunes Resolve. The zero value resolves every skill to its highest
// acceptable release, ignoring any previous lock.
type Options struct {
	// Locked maps skill names to previously chosen versions, usually read
	// from skills.lock. A locked version is kept as long as it still
	// satisfies every constraint, so adding one skill does not upgrade
	// others. Nil means nothing is locked.
	Locked map[string]*semver.Version
	// Upgrade names skills whose locked version is ignored, so they move to
	// the highest acceptable version. Nil means none.
	Upgrade []string
	// UpgradeAll ignores Locked entirely.
	UpgradeAll bool
	// Prereleases lets pre-release versions satisfy every constraint. When
	// false (the default), as in Masterminds semver, a pre-release is only
	// acceptable to a constraint that itself names a pre-release
	// (">=2.0.0-beta").
	Prereleases bool
}

// Skill is one chosen skill version.
type Skill struct {
	// Name is the skill's name.
	Name string
	// Version is the chosen version.
	Version *semver.Version
	// Dependencies are the depends_on constraints of that version, sorted by
	// name.
	Dependencies []Dependency
}

// Solution is the outcome of a successful Resolve.
type Solution struct {
	// Wants are the project's direct wants, as passed to Resolve.
	Wants []Dependency
	// Skills holds the chosen version of every skill in the closure, sorted
	// by name.
	Skills []Skill
}

// Lookup returns the chosen skill called name, if it is in the solution.
func (s *Solution) Lookup(name string) (Skill, bool) {
	i, ok := slices.BinarySearchFunc(s.Skills, name, func(k Skill, name string) int {
		return cmp.Compare(k.Name, name)
	})
	if !ok {
		return Skill{}, false
	}
	return s.Skills[i], true
}

// Resolve chooses one version of every skill reachable from wants, using src
// to learn which versions exist and what they depend on.
//
// It prefers, for each skill, the locked version (see Options) and otherwise
// the highest acceptable one; dependency cycles are allowed. If a wanted
// skill is unknown, the error wraps ErrNotFound and names it. If no choice
// satisfies every constraint (including transitive dependencies on unknown
// skills or on versions that do not exist), the error is a *NoSolutionError
// explaining why. Errors from src and from ctx are returned wrapped.
func Resolve(ctx context.Context, wants []Dependency, src Source, opts Options) (*Solution, error) {
	s := newSolver(src, wants, opts)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	return s.solution(), nil
}

// Allows reports whether v satisfies d under the same pre-release rule
// Resolve applies (see Options.Prereleases): what a check of a lock
// against its constraints needs to agree with resolution.
func (d Dependency) Allows(v *semver.Version, prereleases bool) bool {
	if d.Constraint == nil {
		return prereleases || v.Prerelease() == ""
	}
	c := *d.Constraint
	c.IncludePrerelease = c.IncludePrerelease || prereleases
	return c.Check(v)
}
