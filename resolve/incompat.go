package resolve

// kind says where an incompatibility comes from.
type kind uint8

const (
	// kindRoot is {not project}: the project must be selected.
	kindRoot kind = iota
	// kindDependency is {depender, not dependee}: a declared dependency.
	kindDependency
	// kindSelf is {depender}: a version that depends on its own skill at
	// versions that exclude itself.
	kindSelf
	// kindNoVersions is {dependee}: no published version matches.
	kindNoVersions
	// kindNotFound is {skill}: the Source does not know the name.
	kindNotFound
	// kindConflict is derived from two other incompatibilities.
	kindConflict
)

// An incompat (incompatibility) is a set of terms that must not all be true
// at once. External ones state facts about published skills; derived ones
// are learned during conflict resolution and remember their two causes,
// which makes them a proof that can be explained to a person.
type incompat struct {
	terms  []term
	kind   kind
	causes [2]*incompat // kindConflict: the conflict and the satisfier's cause
	raw    string       // kindSelf: the constraint text
}

// external reports whether the incompatibility is a fact rather than a
// derivation.
func (in *incompat) external() bool { return in.kind != kindConflict }

// failure reports whether the incompatibility rules out the project itself,
// which means version solving has failed.
func (in *incompat) failure() bool {
	return len(in.terms) == 0 || (len(in.terms) == 1 && in.terms[0].p.root)
}

// derive builds the incompatibility learned from conflict and other, with
// terms normalised as PubGrub requires: at most one term per package, and
// no positive project term unless it is the only one (the project is always
// selected, so such a term adds nothing but noise in explanations).
func derive(terms []term, conflict, other *incompat) *incompat {
	if len(terms) != 1 {
		kept := terms[:0:0]
		for _, t := range terms {
			if !t.p.root || !t.positive() {
				kept = append(kept, t)
			}
		}
		terms = kept
	}
	merged := make([]term, 0, len(terms))
	for _, t := range terms {
		i := 0
		for i < len(merged) && merged[i].p != t.p {
			i++
		}
		if i < len(merged) {
			merged[i] = merged[i].intersect(t)
		} else {
			merged = append(merged, t)
		}
	}
	return &incompat{terms: merged, kind: kindConflict, causes: [2]*incompat{conflict, other}}
}
