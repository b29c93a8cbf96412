package resolve

import "container/heap"

// An assignment is one entry of the partial solution: a decision (a chosen
// version, no cause) or a derivation (a term implied by the decisions so far
// and by cause).
type assignment struct {
	term  term
	level int       // decisions at or before this one, the project's included
	cause *incompat // nil for a decision
}

// partial is PubGrub's partial solution: the ordered assignments made so far.
// Each package also keeps the running intersection of its own assignments
// (pkg.stack), so relations and satisfiers are answered without rescanning.
type partial struct {
	assignments []assignment
	level       int // the current decision level: the number of decisions

	// frontier holds the packages that need a decision (see next).
	frontier frontier

	// undone lists the causes of the derivations the last backtrack
	// removed, newest first.
	undone []*incompat
}

// assign appends a to the partial solution.
func (ps *partial) assign(a assignment) {
	p := a.term.p
	p.cur = p.cur.and(a.term.set)
	p.stack = append(p.stack, accumulated{at: len(ps.assignments), set: p.cur})
	ps.assignments = append(ps.assignments, a)
	ps.enqueue(p)
}

// enqueue updates p's place in the frontier after its assignments changed.
func (ps *partial) enqueue(p *pkg) {
	switch {
	case p.undecided():
		p.count = p.acc().count()
		if p.locked >= 0 && p.acc().has(p.locked) {
			// A usable lock is the one candidate: deciding locked skills
			// first makes new ones fit around them instead of upgrading them.
			p.count = 1
		}
		if p.slot < 0 {
			heap.Push(&ps.frontier, p)
		} else {
			heap.Fix(&ps.frontier, p.slot)
		}
	case p.slot >= 0:
		heap.Remove(&ps.frontier, p.slot)
	}
}

// derive adds t as a derivation caused by cause.
func (ps *partial) derive(t term, cause *incompat) {
	ps.assign(assignment{term: t, level: ps.level, cause: cause})
}

// decide selects version v of p, opening a new decision level.
func (ps *partial) decide(p *pkg, v int) {
	ps.level++
	p.decided = v
	ps.assign(assignment{term: term{p: p, set: p.single(v)}, level: ps.level})
}

// backtrack removes every assignment made above decision level.
func (ps *partial) backtrack(level int) {
	var touched []*pkg
	ps.undone = ps.undone[:0]
	for len(ps.assignments) > 0 {
		a := ps.assignments[len(ps.assignments)-1]
		if a.level <= level {
			break
		}
		ps.assignments = ps.assignments[:len(ps.assignments)-1]
		p := a.term.p
		p.stack = p.stack[:len(p.stack)-1]
		p.cur = p.all
		if len(p.stack) > 0 {
			p.cur = p.stack[len(p.stack)-1].set
		}
		if a.cause == nil {
			p.decided = -1
		} else {
			ps.undone = append(ps.undone, a.cause)
		}
		if !p.touched {
			p.touched = true
			touched = append(touched, p)
		}
	}
	ps.level = level
	for _, p := range touched {
		p.touched = false
		ps.enqueue(p)
	}
}

// next returns the package to decide next: among those that must be
// selected but are undecided, the one accepting the fewest versions (the
// earliest discovered among equals; a usable lock counts as one version),
// or nil if there is none.
func (ps *partial) next() *pkg {
	if len(ps.frontier) == 0 {
		return nil
	}
	return ps.frontier[0]
}

// frontier is a min-heap (container/heap) of the packages that must be
// selected but are undecided; pkg.slot is each one's index.
type frontier []*pkg

func (f frontier) Len() int { return len(f) }

func (f frontier) Less(i, j int) bool {
	if f[i].count != f[j].count {
		return f[i].count < f[j].count
	}
	return f[i].id < f[j].id
}

func (f frontier) Swap(i, j int) {
	f[i], f[j] = f[j], f[i]
	f[i].slot, f[j].slot = i, j
}

func (f *frontier) Push(x any) {
	p := x.(*pkg)
	p.slot = len(*f)
	*f = append(*f, p)
}

func (f *frontier) Pop() any {
	old := *f
	p := old[len(old)-1]
	p.slot = -1
	*f = old[:len(old)-1]
	return p
}

// relation is how the partial solution relates to a term.
type relation uint8

const (
	inconclusive relation = iota // neither implies nor contradicts it
	satisfied                    // implies the term
	contradicted                 // implies its negation
)

// relation returns how the partial solution relates to t.
func (ps *partial) relation(t term) relation {
	acc := t.p.cur
	if len(acc) == 1 { // up to 63 versions: the common case, kept cheap
		a, b := acc[0], t.set[0]
		switch {
		case a&^b == 0:
			return satisfied
		case a&b == 0:
			return contradicted
		default:
			return inconclusive
		}
	}
	switch {
	case acc.subsetOf(t.set):
		return satisfied
	case acc.disjoint(t.set):
		return contradicted
	default:
		return inconclusive
	}
}

// satisfier returns the index of the earliest assignment such that the
// assignments up to and including it satisfy t. t must be satisfied.
func (ps *partial) satisfier(t term) int {
	for _, e := range t.p.stack {
		if e.set.subsetOf(t.set) {
			return e.at
		}
	}
	panic("resolve: internal error: " + t.p.name + " " + t.constraint() + " is not satisfied")
}
