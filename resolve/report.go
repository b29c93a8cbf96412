package resolve

import (
	"fmt"
	"strings"
)

// projectName stands for the root of the resolution in explanations.
const projectName = "the project"

// NoSolutionError reports that no choice of versions satisfies every
// constraint. Its full message is a derivation a person can follow, in the style
// of PubGrub's error reporting: each line states a fact and why it holds,
// and facts used more than once are numbered so later lines can refer to
// them:
//
//	Because every version of foo depends on bar ^2.0.0 which depends on baz ^3.0.0, every version of foo requires baz ^3.0.0.
//	So, because the project depends on both baz ^1.0.0 and foo ^1.0.0, version solving failed.
//
// A derivation of more than a screenful (a pathological conflict's runs to
// hundreds of kilobytes) is summarised unless Verbose is set: the
// conclusion, the skills involved and the few facts nearest it, in at
// most 20 lines.
type NoSolutionError struct {
	// Derivation is the proof behind the message. Its root states that
	// version solving failed; its leaves are facts about published skills.
	Derivation *Derivation
	// Verbose makes Error return the whole derivation, however long.
	Verbose bool

	full, short string
}

// Error returns the explanation: full sentences, one per line, meant to be
// shown to the user as they are. It is the summary of a long derivation
// unless e.Verbose is set.
func (e *NoSolutionError) Error() string {
	if e.Verbose {
		return e.full
	}
	return e.short
}

// Derivation is one fact in the proof of a NoSolutionError: either an
// external fact (a declared dependency, an unknown skill, a constraint no
// published version matches) or a fact derived from two earlier ones.
// Facts used by several derivations are shared.
type Derivation struct {
	// Fact states what this node establishes, for example
	// "foo 1.0.0 depends on bar ^2.0.0" or "foo 1.0.0 is forbidden".
	Fact string
	// Causes holds the two facts this one follows from; it is empty for an
	// external fact.
	Causes []*Derivation
}

func newNoSolutionError(root *incompat) *NoSolutionError {
	memo := make(map[*incompat]*Derivation)
	var build func(in *incompat) *Derivation
	build = func(in *incompat) *Derivation {
		if d, ok := memo[in]; ok {
			return d
		}
		d := &Derivation{Fact: in.String()}
		if !in.external() {
			d.Causes = []*Derivation{build(in.causes[0]), build(in.causes[1])}
		}
		memo[in] = d
		return d
	}
	full := explain(root)
	return &NoSolutionError{Derivation: build(root), full: full, short: summarize(root, full)}
}

// terse names the versions a term speaks about: "foo ^1.0.0", or "every
// version of foo" when allowEvery and the term covers them all.
func terse(t term, allowEvery bool) string {
	switch {
	case t.p.root:
		return projectName
	case allowEvery && t.isAny():
		return "every version of " + t.p.name
	}
	return t.p.name + " " + t.constraint()
}

// terseRef names a term's package: "foo".
func terseRef(t term) string {
	if t.p.root {
		return projectName
	}
	return t.p.name
}

// String states the incompatibility as a fact, in words.
func (in *incompat) String() string {
	switch in.kind {
	case kindDependency:
		return terse(in.terms[0], true) + " depends on " + terse(in.terms[1], false)
	case kindSelf:
		return terse(in.terms[0], true) + " depends on " + in.terms[0].p.name + " " + in.raw
	case kindNoVersions:
		t := in.terms[0]
		return "no versions of " + terseRef(t) + " match " + t.constraint()
	case kindNotFound:
		return terseRef(in.terms[0]) + " doesn't exist"
	case kindRoot:
		return projectName + " is required"
	}
	if in.failure() {
		return "version solving failed"
	}

	if len(in.terms) == 1 {
		t := in.terms[0]
		verdict := " is forbidden"
		if !t.positive() {
			verdict = " is required"
		}
		if t.isAny() {
			return terseRef(t) + verdict
		}
		return terse(t, false) + verdict
	}

	if len(in.terms) == 2 {
		t1, t2 := in.terms[0], in.terms[1]
		if t1.positive() && t2.positive() {
			return anyOrTerse(t1) + " is incompatible with " + anyOrTerse(t2)
		}
		if !t1.positive() && !t2.positive() {
			return "either " + terse(t1, false) + " or " + terse(t2, false)
		}
	}

	pos, neg := in.split()
	switch {
	case len(pos) == 1 && len(neg) > 0:
		return terse(pos[0], true) + " requires " + joinTerse(neg, " or ")
	case len(pos) > 0 && len(neg) > 0:
		return "if " + joinTerse(pos, " and ") + " then " + joinTerse(neg, " or ")
	case len(pos) > 0:
		return "one of " + joinTerse(pos, " or ") + " must be false"
	default:
		return "one of " + joinTerse(neg, " or ") + " must be true"
	}
}

func anyOrTerse(t term) string {
	if t.isAny() {
		return terseRef(t)
	}
	return terse(t, false)
}

// split returns the positive and the negative terms.
func (in *incompat) split() (pos, neg []term) {
	for _, t := range in.terms {
		if t.positive() {
			pos = append(pos, t)
		} else {
			neg = append(neg, t)
		}
	}
	return pos, neg
}

// single returns the only positive (or negative) term, if there is exactly
// one.
func (in *incompat) single(positive bool) (term, bool) {
	var found term
	n := 0
	for _, t := range in.terms {
		if t.positive() == positive {
			found = t
			n++
		}
	}
	return found, n == 1
}

func joinTerse(ts []term, sep string) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = terse(t, false)
	}
	return strings.Join(s, sep)
}

// ref formats a reference to a numbered line, or nothing for line 0.
func ref(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d)", line)
}

// and states "a and b" as one phrase, with more natural wording for the
// common shapes ("foo depends on both x and y", "foo depends on x which
// depends on y", "foo depends on x which doesn't exist"). aLine and bLine
// are line numbers to cite, or 0.
func and(a, b *incompat, aLine, bLine int) string {
	if s := requiresBoth(a, b, aLine, bLine); s != "" {
		return s
	}
	if s := requiresThrough(a, b, aLine, bLine); s != "" {
		return s
	}
	if s := requiresForbidden(a, b, aLine, bLine); s != "" {
		return s
	}
	return a.String() + ref(aLine) + " and " + b.String() + ref(bLine)
}

// verb is how a requirement reads: "depends on" for declared dependencies.
func verb(in *incompat) string {
	if in.kind == kindDependency {
		return "depends on"
	}
	return "requires"
}

// requiresBoth phrases "a and b" as "foo requires both x and y".
func requiresBoth(a, b *incompat, aLine, bLine int) string {
	if len(a.terms) == 1 || len(b.terms) == 1 {
		return ""
	}
	ap, ok1 := a.single(true)
	bp, ok2 := b.single(true)
	if !ok1 || !ok2 || ap.p != bp.p || !ap.set.equal(bp.set) {
		return ""
	}
	_, aNeg := a.split()
	_, bNeg := b.split()
	v := "requires"
	if a.kind == kindDependency && b.kind == kindDependency {
		v = "depends on"
	}
	return terse(ap, true) + " " + v + " both " + joinTerse(aNeg, " or ") + ref(aLine) +
		" and " + joinTerse(bNeg, " or ") + ref(bLine)
}

// requiresThrough phrases "a and b" as "foo requires x which requires y".
func requiresThrough(a, b *incompat, aLine, bLine int) string {
	if len(a.terms) == 1 || len(b.terms) == 1 {
		return ""
	}
	aNeg, okAN := a.single(false)
	bNeg, okBN := b.single(false)
	aPos, okAP := a.single(true)
	bPos, okBP := b.single(true)

	var prior, latter *incompat
	var priorNeg term
	var priorLine, latterLine int
	switch {
	case okAN && okBP && aNeg.p == bPos.p && aNeg.inverse().satisfies(bPos):
		prior, priorNeg, priorLine, latter, latterLine = a, aNeg, aLine, b, bLine
	case okBN && okAP && bNeg.p == aPos.p && bNeg.inverse().satisfies(aPos):
		prior, priorNeg, priorLine, latter, latterLine = b, bNeg, bLine, a, aLine
	default:
		return ""
	}

	var sb strings.Builder
	pos, _ := prior.split()
	if len(pos) > 1 {
		sb.WriteString("if " + joinTerse(pos, " and ") + " then ")
	} else {
		sb.WriteString(terse(pos[0], true) + " " + verb(prior) + " ")
	}
	_, latterNeg := latter.split()
	sb.WriteString(terse(priorNeg, false) + ref(priorLine) + " which " + verb(latter) + " " +
		joinTerse(latterNeg, " or ") + ref(latterLine))
	return sb.String()
}

// requiresForbidden phrases "a and b" as "foo requires x which is
// forbidden" (or "which doesn't exist", "which doesn't match any versions").
func requiresForbidden(a, b *incompat, aLine, bLine int) string {
	if len(a.terms) != 1 && len(b.terms) != 1 {
		return ""
	}
	prior, latter, priorLine, latterLine := a, b, aLine, bLine
	if len(a.terms) == 1 {
		prior, latter, priorLine, latterLine = b, a, bLine, aLine
	}
	neg, ok := prior.single(false)
	if !ok || !neg.inverse().satisfies(latter.terms[0]) {
		return ""
	}
	pos, _ := prior.split()
	if len(pos) == 0 {
		return ""
	}

	var sb strings.Builder
	if len(pos) > 1 {
		sb.WriteString("if " + joinTerse(pos, " and ") + " then ")
	} else {
		sb.WriteString(terse(pos[0], true) + " " + verb(prior) + " ")
	}
	sb.WriteString(terse(neg, false) + ref(priorLine))
	switch latter.kind {
	case kindNoVersions:
		sb.WriteString(" which doesn't match any versions")
	case kindNotFound:
		sb.WriteString(" which doesn't exist")
	case kindSelf:
		sb.WriteString(" which depends on " + latter.terms[0].p.name + " " + latter.raw)
	default:
		sb.WriteString(" which is forbidden")
	}
	sb.WriteString(ref(latterLine))
	return sb.String()
}
