package resolve

import (
	"math/bits"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// A set is a set of outcomes for one skill, as a bitset. Bit i < n stands
// for the skill's i-th published version (ascending) and bit n stands for
// "the skill is not selected at all". Because the Source lists every
// version, set algebra on terms is exact: intersection is AND, complement is
// NOT within the skill's universe.
type set []uint64

// newSet returns an empty set with room for n versions plus "absent".
func newSet(n int) set { return make(set, n/64+1) }

func (s set) has(i int) bool { return s[i/64]&(1<<(i%64)) != 0 }

func (s set) add(i int) { s[i/64] |= 1 << (i % 64) }

func (s set) and(o set) set {
	r := make(set, len(s))
	for i := range s {
		r[i] = s[i] & o[i]
	}
	return r
}

func (s set) or(o set) set {
	r := make(set, len(s))
	for i := range s {
		r[i] = s[i] | o[i]
	}
	return r
}

func (s set) andNot(o set) set {
	r := make(set, len(s))
	for i := range s {
		r[i] = s[i] &^ o[i]
	}
	return r
}

func (s set) equal(o set) bool {
	for i := range s {
		if s[i] != o[i] {
			return false
		}
	}
	return true
}

func (s set) subsetOf(o set) bool {
	for i := range s {
		if s[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

func (s set) disjoint(o set) bool {
	for i := range s {
		if s[i]&o[i] != 0 {
			return false
		}
	}
	return true
}

func (s set) empty() bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

func (s set) count() int {
	n := 0
	for _, w := range s {
		n += bits.OnesCount64(w)
	}
	return n
}

// highest returns the highest member below limit, or -1.
func (s set) highest(limit int) int {
	for i := limit - 1; i >= 0; i-- {
		if s.has(i) {
			return i
		}
	}
	return -1
}

// pkg is everything one Resolve call knows about one skill name: its
// versions (fetched once), their dependencies (fetched on demand), the
// incompatibilities that mention it and its share of the partial solution.
type pkg struct {
	id       int // discovery order
	name     string
	root     bool  // the synthetic package standing for the project
	missing  error // non-nil if the Source does not know the name
	versions []*semver.Version
	n        int  // len(versions); bit n of a set means "absent"
	all      set  // every version plus absent: the term "anything"
	hidePre  bool // pre-releases are only acceptable when named
	locked   int  // index of the version to prefer, or -1

	deps    [][]Dependency // per version, nil until fetched
	fetched []bool         // deps[i] has been fetched
	listed  []bool         // incompatibilities for version i were added
	matches map[string]set // constraint text -> matching versions

	incompats []*incompat // every incompatibility with a term on this package

	stack   []accumulated // partial-solution assignments to this package
	cur     set           // the last stack entry's set, or all
	decided int           // index of the decided version, or -1
	slot    int           // index in partial.frontier, or -1
	count   int           // frontier priority: acceptable versions, 1 if locked
	queued  bool          // waiting in the propagation queue
	touched bool          // scratch mark for backtrack
}

// accumulated is the intersection of a package's assignments up to and
// including the assignment at index at of the partial solution.
type accumulated struct {
	at  int
	set set
}

// undecided reports whether p must be selected but has no decision yet.
func (p *pkg) undecided() bool {
	return p.decided < 0 && len(p.stack) > 0 && !p.acc().has(p.n)
}

// acc returns the intersection of every current assignment to p: what the
// partial solution allows for p.
func (p *pkg) acc() set { return p.cur }

// single returns the set holding only version i.
func (p *pkg) single(i int) set {
	s := newSet(p.n)
	s.add(i)
	return s
}

// visible reports whether version i counts when describing set s: a
// pre-release that s leaves out is invisible when pre-releases are only
// acceptable by name, because range syntax excludes it anyway.
func (p *pkg) visible(s set, i int) bool {
	return s.has(i) || !p.hidePre || p.versions[i].Prerelease() == ""
}

// coversAll reports whether the versions in s are every version of p that a
// person would count.
func (p *pkg) coversAll(s set) bool {
	for i := range p.n {
		if !s.has(i) && p.visible(s, i) {
			return false
		}
	}
	return p.n > 0
}

// describe renders the versions in s as constraint text: "any", an exact
// version, or ranges over p's published versions in pub's style (bounds at
// either end of the published list are left out: "<2.0.0", ">=1.1.0").
func (p *pkg) describe(s set) string {
	if p.coversAll(s) {
		return "any"
	}
	var vis []int
	for i := range p.n {
		if p.visible(s, i) {
			vis = append(vis, i)
		}
	}
	var runs []string
	for k := 0; k < len(vis); k++ {
		if !s.has(vis[k]) {
			continue
		}
		first := k
		for k+1 < len(vis) && s.has(vis[k+1]) {
			k++
		}
		if first == k {
			runs = append(runs, p.versions[vis[k]].String())
			continue
		}
		var bounds []string
		if first > 0 {
			bounds = append(bounds, ">="+p.versions[vis[first]].String())
		}
		if k+1 < len(vis) {
			bounds = append(bounds, "<"+p.versions[vis[k+1]].String())
		}
		runs = append(runs, strings.Join(bounds, " "))
	}
	if len(runs) == 0 {
		return "none"
	}
	return strings.Join(runs, " || ")
}

// A term is a statement about one package that a choice of versions makes
// true or false: positive "foo ^1.0.0" (foo is selected at one of these
// versions) or negative "not foo ^1.0.0" (foo is absent or at another
// version). Its set holds the outcomes that make it true.
type term struct {
	p   *pkg
	set set
	// text is the constraint text naming the versions the term is about
	// (see versions), kept from the declaration for messages; empty means
	// describe them.
	text string
}

// positive reports whether the term requires its package to be selected.
func (t term) positive() bool { return !t.set.has(t.p.n) }

// versions returns the versions the term speaks about: the ones it allows
// if positive, the ones it forbids if negative.
func (t term) versions() set {
	if t.positive() {
		return t.set
	}
	return t.p.all.andNot(t.set)
}

// inverse returns "not t".
func (t term) inverse() term {
	return term{p: t.p, set: t.p.all.andNot(t.set), text: t.text}
}

// intersect returns the term true exactly when both t and o are.
func (t term) intersect(o term) term {
	s := t.set.and(o.set)
	return term{p: t.p, set: s, text: keepText(s, t, o)}
}

// satisfies reports whether t being true makes o true.
func (t term) satisfies(o term) bool { return t.set.subsetOf(o.set) }

// constraint returns the text for the versions the term speaks about.
func (t term) constraint() string {
	if t.text != "" {
		return t.text
	}
	return t.p.describe(t.versions())
}

// isAny reports whether the term speaks about every version of its package
// and has no declared text of its own.
func (t term) isAny() bool {
	return t.text == "" && t.p.coversAll(t.versions())
}

// keepText returns the text of whichever operand has the same outcomes as
// the result s, or "" if neither does.
func keepText(s set, operands ...term) string {
	for _, o := range operands {
		if o.text != "" && o.set.equal(s) {
			return o.text
		}
	}
	return ""
}
