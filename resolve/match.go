package resolve

import (
	"strings"

	"github.com/Masterminds/semver/v3"
)

// A matcher evaluates the most common constraint shapes without going
// through semver.Constraints.Check, which formats an error for every version
// that does not match and dominates resolution time on large graphs. It is
// an OR of AND groups of comparators, each with a full numeric version
// (">=1.2.0 <2.0.0", "^1.4.2 || ^2.0.0", "~0.3.1", "=1.0.0").
//
// It only answers for release versions; pre-release versions, and any
// constraint with another shape (partial or wildcard versions, "!=",
// pre-release bounds), go through Check. TestMatcherAgreesWithCheck holds
// it to Masterminds' semantics.
type matcher [][]comparator

type comparator struct {
	op string // "", "=", ">", "<", ">=", "<=", "~" or "^"
	v  *semver.Version
}

// compile returns the matcher for c, or nil if c has a shape the matcher
// does not handle.
func compile(c *semver.Constraints) matcher {
	var m matcher
	for _, group := range strings.Split(c.String(), " || ") {
		var and []comparator
		for _, text := range strings.Fields(group) {
			op := text[:len(text)-len(strings.TrimLeft(text, "<>=~^"))]
			switch op {
			case "", "=", ">", "<", ">=", "<=", "~", "^":
			default:
				return nil
			}
			v, err := semver.StrictNewVersion(text[len(op):])
			if err != nil || v.Prerelease() != "" || v.Metadata() != "" {
				return nil
			}
			and = append(and, comparator{op: op, v: v})
		}
		if len(and) == 0 {
			return nil
		}
		m = append(m, and)
	}
	return m
}

// allows reports whether release version v satisfies the matcher.
func (m matcher) allows(v *semver.Version) bool {
	for _, and := range m {
		ok := true
		for _, c := range and {
			if !c.allows(v) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// allows mirrors Masterminds' comparator functions for a release version v
// and a comparator without wildcards.
func (c comparator) allows(v *semver.Version) bool {
	cmp := v.Compare(c.v)
	switch c.op {
	case "", "=":
		return cmp == 0
	case ">":
		return cmp > 0
	case "<":
		return cmp < 0
	case ">=":
		return cmp >= 0
	case "<=":
		return cmp <= 0
	case "~": // >=1.2.3 <1.3.0; ~0.0.0 is any
		if cmp < 0 {
			return false
		}
		if c.v.Major() == 0 && c.v.Minor() == 0 && c.v.Patch() == 0 {
			return true
		}
		return v.Major() == c.v.Major() && v.Minor() == c.v.Minor()
	default: // "^": >=1.2.3 <2.0.0, >=0.2.3 <0.3.0, >=0.0.3 <0.0.4
		switch {
		case cmp < 0:
			return false
		case c.v.Major() > 0:
			return v.Major() == c.v.Major()
		case v.Major() > 0:
			return false
		case c.v.Minor() > 0:
			return v.Minor() == c.v.Minor()
		default:
			return v.Minor() == 0 && v.Patch() == c.v.Patch()
		}
	}
}

// match returns the versions of p that satisfy d, honouring the pre-release
// policy. Checking is costly and constraints repeat, across the versions of
// a skill and across skills, so the sets are cached per package and
// constraint text, and compiled matchers per text.
func (s *solver) match(p *pkg, d Dependency) set {
	key := "*"
	switch {
	case d.Constraint == nil:
	case d.Raw != "":
		key = "raw:" + d.Raw
	default:
		key = d.Constraint.String()
	}
	if m, ok := p.matches[key]; ok {
		return m
	}
	var c semver.Constraints
	var fast matcher
	if d.Constraint != nil {
		c = *d.Constraint
		c.IncludePrerelease = c.IncludePrerelease || s.opts.Prereleases
		var ok bool
		if fast, ok = s.matchers[key]; !ok {
			fast = compile(d.Constraint)
			s.matchers[key] = fast
		}
	}
	m := newSet(p.n)
	for i, v := range p.versions {
		var ok bool
		switch {
		case d.Constraint == nil:
			ok = s.opts.Prereleases || v.Prerelease() == ""
		case fast != nil && v.Prerelease() == "":
			ok = fast.allows(v)
		default:
			ok = c.Check(v)
		}
		if ok {
			m.add(i)
		}
	}
	p.matches[key] = m
	return m
}
