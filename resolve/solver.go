package resolve

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"
)

// maxBackjump is the longest backjump, in decision levels, that conflict
// resolution takes; longer ones backtrack chronologically.
const maxBackjump = 50

// solver holds the state of one Resolve call. The algorithm and its vocabulary
// follow pub's description of PubGrub:
// https://github.com/dart-lang/pub/blob/master/doc/solver.md
type solver struct {
	src     Source
	wants   []Dependency
	opts    Options
	upgrade map[string]bool

	pkgs  map[string]*pkg
	order []*pkg // discovery order; order[0] is the project
	root  *pkg

	// deps indexes dependency incompatibilities by (depender, dependee) so
	// identical dependencies of several versions merge into one.
	deps map[[2]*pkg][]*incompat

	matchers map[string]matcher // compiled constraints by text; nil: use Check

	// chronological is the longest backjump taken in full; a longer one
	// backtracks a single level (see resolveConflict).
	chronological int

	partial
}

func newSolver(src Source, wants []Dependency, opts Options) *solver {
	s := &solver{
		src:     src,
		wants:   wants,
		opts:    opts,
		upgrade: make(map[string]bool, len(opts.Upgrade)),
		pkgs:    make(map[string]*pkg),
		deps:    make(map[[2]*pkg][]*incompat),

		matchers: make(map[string]matcher),

		chronological: maxBackjump,
	}
	for _, name := range opts.Upgrade {
		s.upgrade[name] = true
	}
	// The project is a package with a single version; its dependencies are
	// the wants.
	s.root = s.newPkg("", []*semver.Version{semver.New(0, 0, 0, "", "")})
	s.root.root = true
	return s
}

// run checks that every want exists, then solves.
func (s *solver) run(ctx context.Context) error {
	for _, w := range s.wants {
		p, err := s.load(ctx, w.Name)
		if err != nil {
			return err
		}
		if p.missing != nil {
			return fmt.Errorf("resolve %s: %w", w.Name, p.missing)
		}
	}
	return s.solve(ctx)
}

// solve runs PubGrub's main loop until every required package is decided or
// the project itself is ruled out.
func (s *solver) solve(ctx context.Context) error {
	s.addIncompat(&incompat{kind: kindRoot, terms: []term{{p: s.root, set: s.root.single(s.root.n)}}})
	for next := s.root; next != nil; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := s.propagate(next); err != nil {
			return err
		}
		var err error
		if next, err = s.makeDecision(ctx); err != nil {
			return err
		}
	}
	return s.verify()
}

// verify checks the decisions against every chosen version's dependencies,
// so that a bug in the solver can never produce a broken lock.
func (s *solver) verify() error {
	for _, p := range s.order {
		if p.decided < 0 {
			continue
		}
		for _, d := range p.deps[p.decided] {
			q := s.pkgs[d.Name]
			if q == nil || q.decided < 0 || !s.match(q, d).has(q.decided) {
				return fmt.Errorf("resolve: internal error: the solution does not satisfy %s %s's dependency on %s", p.name, p.versions[p.decided], d)
			}
		}
	}
	return nil
}

// addIncompat records in for every package it mentions.
func (s *solver) addIncompat(in *incompat) {
	for _, t := range in.terms {
		t.p.incompats = append(t.p.incompats, in)
	}
}

// propagate performs unit propagation starting from the assignments to p:
// every incompatibility that the partial solution almost satisfies yields
// the negation of its one undecided term, and every one it fully satisfies
// is a conflict to resolve.
func (s *solver) propagate(p *pkg) error {
	changed := []*pkg{p} // a queue: oldest first, as in pub
	p.queued = true
	for len(changed) > 0 {
		p := changed[0]
		changed = changed[1:]
		p.queued = false
		// Newest first: learned incompatibilities are the most general.
		for i := len(p.incompats) - 1; i >= 0; i-- {
			in := p.incompats[i]
			unsat, ok := s.almostSatisfied(in)
			if !ok {
				continue
			}
			if unsat < 0 {
				cause, err := s.resolveConflict(in)
				if err != nil {
					return err
				}
				unsat, ok = s.almostSatisfied(cause)
				if !ok || unsat < 0 {
					panic("resolve: internal error: learned incompatibility is not almost satisfied")
				}
				t := cause.terms[unsat]
				s.derive(t.inverse(), cause)
				for _, q := range changed {
					q.queued = false
				}
				changed = []*pkg{t.p}
				t.p.queued = true
				// The backtrack may have removed derivations that still
				// follow from what is left (see resolveConflict): restore
				// them, oldest first.
				for i := len(s.undone) - 1; i >= 0; i-- {
					c := s.undone[i]
					if u, ok := s.almostSatisfied(c); ok && u >= 0 {
						rt := c.terms[u]
						s.derive(rt.inverse(), c)
						if !rt.p.queued {
							changed = append(changed, rt.p)
							rt.p.queued = true
						}
					}
				}
				break
			}
			t := in.terms[unsat]
			s.derive(t.inverse(), in)
			if !t.p.queued {
				changed = append(changed, t.p)
				t.p.queued = true
			}
		}
	}
	return nil
}

// almostSatisfied checks in against the partial solution. It returns
// ok=false if there is nothing to derive from it (a term is contradicted, or
// two are inconclusive); otherwise unsat is the index of its single
// inconclusive term, or -1 if the partial solution satisfies every term.
func (s *solver) almostSatisfied(in *incompat) (unsat int, ok bool) {
	unsat = -1
	for i := range in.terms {
		t := &in.terms[i]
		r := inconclusive
		if acc := t.p.cur; len(acc) == 1 { // the common case, inlined
			switch a, b := acc[0], t.set[0]; {
			case a&^b == 0:
				r = satisfied
			case a&b == 0:
				r = contradicted
			}
		} else {
			r = s.relation(*t)
		}
		switch r {
		case contradicted:
			return 0, false
		case inconclusive:
			if unsat >= 0 {
				return 0, false
			}
			unsat = i
		}
	}
	return unsat, true
}

// resolveConflict finds the root cause of the conflict in, which the partial
// solution satisfies, by resolution with the causes of its satisfiers. It
// backjumps to the level where the root cause lets propagation derive
// something new and returns it, or fails with a *NoSolutionError once the
// project itself is ruled out.
func (s *solver) resolveConflict(in *incompat) (*incompat, error) {
	learned := false
	for !in.failure() {
		var (
			recentTerm = -1 // the term of in satisfied last
			recent     = -1 // index of its satisfier
			difference set  // what the satisfier allows beyond recentTerm
			prevLevel  = 1  // level of the previous satisfier, at least the project's
		)
		for i, t := range in.terms {
			sat := s.satisfier(t)
			switch {
			case recent < 0:
				recentTerm, recent = i, sat
			case recent < sat:
				prevLevel = max(prevLevel, s.assignments[recent].level)
				recentTerm, recent, difference = i, sat, nil
			default:
				prevLevel = max(prevLevel, s.assignments[sat].level)
			}
			if recentTerm == i {
				// If the satisfier does not satisfy the term on its own, the
				// assignment that satisfies the rest is a previous satisfier.
				difference = s.assignments[recent].term.set.andNot(t.set)
				if difference.empty() {
					difference = nil
				} else {
					rest := term{p: t.p, set: t.p.all.andNot(difference)}
					prevLevel = max(prevLevel, s.assignments[s.satisfier(rest)].level)
				}
			}
		}

		sat := s.assignments[recent]
		if prevLevel < sat.level || sat.cause == nil {
			// in is the root cause. Backjumping to prevLevel makes it
			// almost satisfied, and so does backtracking to any level up to
			// sat.level-1. PubGrub jumps all the way, but a long jump
			// throws away decisions that have nothing to do with the
			// conflict, only to make them again, so a long jump becomes a
			// chronological backtrack instead (Nadel and Ryvchin, "Chronological
			// Backtracking", SAT 2018).
			target := prevLevel
			if sat.level-prevLevel > s.chronological {
				target = sat.level - 1
			}
			s.backtrack(target)
			if learned {
				s.addIncompat(in)
			}
			return in, nil
		}

		// Resolve in with the satisfier's cause: the terms of both, minus the
		// satisfied package, plus "not (satisfier \ term)" if the satisfier
		// only partly satisfied it.
		terms := make([]term, 0, len(in.terms)+len(sat.cause.terms))
		for i, t := range in.terms {
			if i != recentTerm {
				terms = append(terms, t)
			}
		}
		for _, t := range sat.cause.terms {
			if t.p != sat.term.p {
				terms = append(terms, t)
			}
		}
		if difference != nil {
			p := sat.term.p
			terms = append(terms, term{p: p, set: p.all.andNot(difference)})
		}
		in = derive(terms, in, sat.cause)
		learned = true
	}
	return nil, newNoSolutionError(in)
}

// makeDecision picks a package that must be selected but is not yet decided
// and decides its best version (the locked one, else the highest), after
// adding that version's dependencies as incompatibilities. If one of them
// already conflicts with the partial solution, nothing is decided:
// propagation rules the version out instead. It returns the package to
// propagate next, or nil when every required package is decided: the
// solution is complete.
func (s *solver) makeDecision(ctx context.Context) (*pkg, error) {
	// Prefer the package with the fewest acceptable versions, so that a
	// conflict, if there is one, shows up early (pub's heuristic).
	p := s.next()
	if p == nil {
		return nil, nil
	}
	acc := p.acc()
	v := p.locked
	if v < 0 || !acc.has(v) {
		v = acc.highest(p.n)
	}
	if v < 0 {
		// Propagation never leaves a required package without versions.
		panic("resolve: internal error: no version of " + p.name + " to decide")
	}
	added, err := s.listDependencies(ctx, p, v)
	if err != nil {
		return nil, err
	}
	for _, in := range added {
		conflict := true
		for _, t := range in.terms {
			if t.p != p && s.relation(t) != satisfied {
				conflict = false
				break
			}
		}
		if conflict {
			return p, nil
		}
	}
	s.decide(p, v)
	return p, nil
}

// solution reads the decided versions off the partial solution.
func (s *solver) solution() *Solution {
	sol := &Solution{Wants: slices.Clone(s.wants)}
	for _, p := range s.order {
		if p.root || p.decided < 0 {
			continue
		}
		sol.Skills = append(sol.Skills, Skill{
			Name:         p.name,
			Version:      p.versions[p.decided],
			Dependencies: slices.Clone(p.deps[p.decided]),
		})
	}
	slices.SortFunc(sol.Skills, func(a, b Skill) int { return cmp.Compare(a.Name, b.Name) })
	return sol
}
