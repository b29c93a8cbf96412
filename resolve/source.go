package resolve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"
)

// load returns the package called name, asking the Source for its versions
// the first time. An unknown name gives a package with no versions and
// missing set; other Source errors are returned.
func (s *solver) load(ctx context.Context, name string) (*pkg, error) {
	if p, ok := s.pkgs[name]; ok {
		return p, nil
	}
	vs, err := s.src.Versions(ctx, name)
	var missing error
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("list versions of %s: %w", name, err)
		}
		missing, vs = err, nil
	}
	p := s.newPkg(name, vs)
	p.missing = missing
	return p, nil
}

// newPkg registers a package with the given versions, sorted ascending and
// with duplicates (equal precedence) removed.
func (s *solver) newPkg(name string, vs []*semver.Version) *pkg {
	versions := make([]*semver.Version, 0, len(vs))
	for _, v := range vs {
		if v != nil {
			versions = append(versions, v)
		}
	}
	slices.SortStableFunc(versions, (*semver.Version).Compare)
	versions = slices.CompactFunc(versions, (*semver.Version).Equal)

	n := len(versions)
	p := &pkg{
		id:       len(s.order),
		name:     name,
		versions: versions,
		n:        n,
		all:      newSet(n),
		hidePre:  !s.opts.Prereleases,
		locked:   -1,
		decided:  -1,
		slot:     -1,
		deps:     make([][]Dependency, n),
		fetched:  make([]bool, n),
		listed:   make([]bool, n),
		matches:  make(map[string]set),
	}
	for i := range n + 1 {
		p.all.add(i)
	}
	p.cur = p.all
	if lv := s.opts.Locked[name]; lv != nil && !s.opts.UpgradeAll && !s.upgrade[name] {
		if i, ok := slices.BinarySearchFunc(versions, lv, (*semver.Version).Compare); ok {
			p.locked = i
		}
	}
	s.pkgs[name] = p
	s.order = append(s.order, p)
	return p
}

// dependencies returns the dependencies of version v of p, sorted by name,
// asking the Source the first time.
func (s *solver) dependencies(ctx context.Context, p *pkg, v int) ([]Dependency, error) {
	if p.fetched[v] {
		return p.deps[v], nil
	}
	var deps []Dependency
	if p.root {
		deps = slices.Clone(s.wants)
	} else {
		var err error
		deps, err = s.src.Dependencies(ctx, p.name, p.versions[v])
		if err != nil {
			return nil, fmt.Errorf("dependencies of %s %s: %w", p.name, p.versions[v], err)
		}
		deps = slices.Clone(deps)
	}
	slices.SortStableFunc(deps, func(a, b Dependency) int { return cmp.Compare(a.Name, b.Name) })
	p.deps[v], p.fetched[v] = deps, true
	return deps, nil
}

// listDependencies turns the dependencies of version v of p into
// incompatibilities, the first time v is considered, and returns the ones it
// added. A dependency that nothing published can satisfy (an unknown skill,
// or no version matching) rules v out directly, with the missing fact as
// the reason.
func (s *solver) listDependencies(ctx context.Context, p *pkg, v int) ([]*incompat, error) {
	if p.listed[v] {
		return nil, nil
	}
	deps, err := s.dependencies(ctx, p, v)
	if err != nil {
		return nil, err
	}
	p.listed[v] = true

	depender := term{p: p, set: p.single(v)}
	var added []*incompat
	for _, d := range deps {
		q, err := s.load(ctx, d.Name)
		if err != nil {
			return nil, err
		}
		ok := s.match(q, d)
		if q == p {
			if !ok.has(v) {
				in := &incompat{kind: kindSelf, terms: []term{depender}, raw: d.text()}
				s.addIncompat(in)
				added = append(added, in)
			}
			continue
		}
		dependee := term{p: q, set: q.all.andNot(ok), text: d.text()}
		dep := &incompat{kind: kindDependency, terms: []term{depender, dependee}}

		var fact *incompat
		switch {
		case q.missing != nil:
			fact = &incompat{kind: kindNotFound, terms: []term{{p: q, set: newSet(q.n)}}}
		case ok.empty():
			fact = &incompat{kind: kindNoVersions, terms: []term{{p: q, set: ok, text: d.text()}}}
		}
		if fact != nil {
			// "v depends on q, which cannot be had" is the fact that matters.
			in := derive([]term{depender}, dep, fact)
			s.addIncompat(in)
			added = append(added, in)
			continue
		}
		added = append(added, s.addDependency(dep))
	}
	return added, nil
}

// addDependency adds the dependency incompatibility dep, merging it with an
// identical dependency already declared by other versions of the same
// skill: {foo 1.0.0, not bar ^1} and {foo 1.1.0, not bar ^1} become
// {foo 1.0.0 || 1.1.0, not bar ^1}, which lets conflict resolution rule out
// many versions at once and reads better in explanations.
func (s *solver) addDependency(dep *incompat) *incompat {
	depender, dependee := dep.terms[0], dep.terms[1]
	key := [2]*pkg{depender.p, dependee.p}
	for i, old := range s.deps[key] {
		if old.terms[1].text != dependee.text || !old.terms[1].set.equal(dependee.set) {
			continue
		}
		merged := &incompat{kind: kindDependency, terms: []term{
			{p: depender.p, set: old.terms[0].set.or(depender.set)},
			old.terms[1],
		}}
		s.deps[key][i] = merged
		for _, q := range key {
			if j := slices.Index(q.incompats, old); j >= 0 {
				q.incompats[j] = merged
			}
		}
		return merged
	}
	s.deps[key] = append(s.deps[key], dep)
	s.addIncompat(dep)
	return dep
}
