package selfschema

import (
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// MaxCost bounds how many times validating one instance may apply
// subschemas at any one place in the instance (see checkCost).
const MaxCost = 10000

// maxRounds bounds the fixed-point iteration of checkCost: a schema still
// growing after this many rounds grows without bound.
const maxRounds = 1000

// maxSteps bounds the work of checkCost itself (map updates), so that
// checking a hostile schema is not the slow part; a schema that needs
// more is refused as too costly (a few tenths of a second of work). The
// frontmatter schema takes 154.
const maxSteps = 2_000_000

// ErrTooCostly is wrapped by the error of a schema whose validation could
// take time exponential in its size or in the depth of the instance, or
// whose compiling would (MaxDepth).
var ErrTooCostly = errors.New("the schema is too costly to validate")

// checkCost refuses a schema whose validation does not stay linear in the
// size of the instance. The validator evaluates every branch of allOf,
// anyOf, oneOf and if/then/else and follows every $ref, without
// memoising, so a few lines of $defs whose allOf names the next one twice
// apply the last 2^n times (a 1 KB schema took minutes on one number),
// and a recursive schema that applies itself twice to a child does the
// same over the depth of the instance. Tool schemas come from skills and
// are validated in skillpm's own process, before any sandbox or timeout.
//
// The bound is W(s), the most subschema applications that applying s once
// can cause at any one place in the instance, computed on the compiled
// schema: the applications at that place (local: s and everything its
// $ref, allOf, anyOf, oneOf, not, if, then, else and dependentSchemas
// reach, counted along every path), or, for a child under one key or
// index, the sum of W over the subschemas applied to that child. Keys are
// told apart (properties, patternProperties by matching, prefixItems by
// index), so a recursive schema that applies itself once per level costs
// what one level costs. W is the least fixed point of those equations,
// found by iterating from local; a schema whose W passes MaxCost, or is
// still growing after maxRounds rounds, is refused.
func checkCost(root *jsonschema.Schema) error {
	g := newCostGraph(root)
	for _, s := range g.nodes {
		if g.local(s) > MaxCost {
			return fmt.Errorf("%w: it applies a subschema more than %d times at one place of an instance (at %s)", ErrTooCostly, MaxCost, s.Location)
		}
	}
	for range maxRounds {
		if g.steps > maxSteps {
			return fmt.Errorf("%w: it is too large to check", ErrTooCostly)
		}
		changed := false
		g.keyed = map[*jsonschema.Schema]*keyCost{}
		next := make(map[*jsonschema.Schema]int, len(g.nodes))
		for _, s := range g.nodes {
			w := max(g.local(s), g.keyCost(s, map[*jsonschema.Schema]bool{}).max())
			if w > MaxCost {
				return fmt.Errorf("%w: it applies a subschema more than %d times at one place of an instance (at %s)", ErrTooCostly, MaxCost, s.Location)
			}
			next[s] = w
			changed = changed || w != g.w[s]
		}
		g.w = next
		if !changed {
			return nil
		}
	}
	return fmt.Errorf("%w: what it applies at one place of an instance grows with the depth of the instance", ErrTooCostly)
}

// costGraph is the compiled schema's nodes and the memos of checkCost.
type costGraph struct {
	nodes   []*jsonschema.Schema
	anchors map[string][]*jsonschema.Schema // by $dynamicAnchor
	locals  map[*jsonschema.Schema]int
	w       map[*jsonschema.Schema]int      // W of the last round
	keyed   map[*jsonschema.Schema]*keyCost // this round's, by node
	steps   int                             // map updates so far
}

func newCostGraph(root *jsonschema.Schema) *costGraph {
	g := &costGraph{anchors: map[string][]*jsonschema.Schema{}, locals: map[*jsonschema.Schema]int{}, w: map[*jsonschema.Schema]int{}}
	seen := map[*jsonschema.Schema]bool{}
	var walk func(s *jsonschema.Schema)
	walk = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		g.nodes = append(g.nodes, s)
		if s.DynamicAnchor != "" {
			g.anchors[s.DynamicAnchor] = append(g.anchors[s.DynamicAnchor], s)
		}
		for _, c := range sameLocation(s, nil) {
			walk(c)
		}
		forChildren(s, func(_ childKey, c *jsonschema.Schema) { walk(c) })
	}
	walk(root)
	return g
}

// sameLocation returns the subschemas s applies where s is applied.
func sameLocation(s *jsonschema.Schema, anchors map[string][]*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	add := func(c ...*jsonschema.Schema) {
		for _, x := range c {
			if x != nil {
				out = append(out, x)
			}
		}
	}
	add(s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else)
	if s.DynamicRef != nil {
		add(s.DynamicRef.Ref)
		if s.DynamicRef.Anchor != "" {
			for _, a := range anchors[s.DynamicRef.Anchor] {
				if a != s.DynamicRef.Ref {
					add(a)
				}
			}
		}
	}
	add(s.AllOf...)
	add(s.AnyOf...)
	add(s.OneOf...)
	for _, c := range s.DependentSchemas {
		add(c)
	}
	for _, d := range s.Dependencies {
		if c, ok := d.(*jsonschema.Schema); ok {
			add(c)
		}
	}
	return out
}

// local is how many schemas applying s applies at the same place,
// counting s and every path through sameLocation. A cycle there is cut:
// the validator stops it with an error when it comes round.
func (g *costGraph) local(s *jsonschema.Schema) int {
	return g.localIn(s, map[*jsonschema.Schema]bool{})
}

func (g *costGraph) localIn(s *jsonschema.Schema, onPath map[*jsonschema.Schema]bool) int {
	if n, ok := g.locals[s]; ok {
		return n
	}
	if onPath[s] {
		return 0
	}
	onPath[s] = true
	n := 1
	for _, c := range sameLocation(s, g.anchors) {
		n = min(n+g.localIn(c, onPath), MaxCost+1)
	}
	delete(onPath, s)
	g.locals[s] = n
	return n
}

// childKey says which children of an instance a subschema applies to:
// the object member named name, the array item at index, or (any) every
// member or item that no property or prefix item names.
type childKey struct {
	kind  byte // 'o' object member, 'a' array item, 'n' property name, 'c' decoded content
	name  string
	index int
	any   bool
}

// forChildren calls f for each subschema s applies to a child of the
// instance, with the children it applies to.
func forChildren(s *jsonschema.Schema, f func(childKey, *jsonschema.Schema)) {
	for name, c := range s.Properties {
		f(childKey{kind: 'o', name: name}, c)
	}
	for _, c := range s.PatternProperties {
		f(childKey{kind: 'o', any: true}, c)
	}
	if c, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		f(childKey{kind: 'o', any: true}, c)
	}
	if s.UnevaluatedProperties != nil {
		f(childKey{kind: 'o', any: true}, s.UnevaluatedProperties)
	}
	if s.PropertyNames != nil {
		f(childKey{kind: 'n', any: true}, s.PropertyNames)
	}
	for i, c := range s.PrefixItems {
		f(childKey{kind: 'a', index: i}, c)
	}
	switch items := s.Items.(type) {
	case *jsonschema.Schema:
		f(childKey{kind: 'a', any: true}, items)
	case []*jsonschema.Schema:
		for i, c := range items {
			f(childKey{kind: 'a', index: i}, c)
		}
	}
	for _, c := range []*jsonschema.Schema{s.Items2020, s.Contains, s.UnevaluatedItems} {
		if c != nil {
			f(childKey{kind: 'a', any: true}, c)
		}
	}
	if c, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		f(childKey{kind: 'a', any: true}, c)
	}
	if s.ContentSchema != nil {
		f(childKey{kind: 'c', any: true}, s.ContentSchema)
	}
}

// keyCost is, for each child of an instance, the sum of W over the
// subschemas applied to it: by member name, by item index, and for the
// members and items named by neither.
type keyCost struct {
	members map[string]int
	items   map[int]int
	anyKind map[byte]int // 'o', 'a', 'n', 'c': children no name or index picks
}

func (k *keyCost) max() int {
	m := 0
	for _, v := range k.members {
		m = max(m, v)
	}
	for _, v := range k.items {
		m = max(m, v)
	}
	for _, v := range k.anyKind {
		m = max(m, v)
	}
	return m
}

// add adds o to k: a child o names and k does not costs o's own plus
// what k applies to unnamed children of its kind, and the other way
// round. It returns how many entries it visited.
func (k *keyCost) add(o *keyCost) int {
	steps := len(o.members) + len(k.members) + len(o.items) + len(k.items) + len(o.anyKind)
	addNamed(k.members, o.members, k.anyKind['o'], o.anyKind['o'])
	addNamed(k.items, o.items, k.anyKind['a'], o.anyKind['a'])
	for kind, v := range o.anyKind {
		k.anyKind[kind] = min(k.anyKind[kind]+v, MaxCost+1)
	}
	return steps
}

// addNamed adds the children src names to those dst names: a child only
// one side names also costs what the other applies to unnamed children
// of its kind (dstAny, srcAny), capped past MaxCost.
func addNamed[K comparable](dst, src map[K]int, dstAny, srcAny int) {
	for name, v := range src {
		if _, ok := dst[name]; !ok {
			dst[name] = dstAny
		}
		dst[name] = min(dst[name]+v, MaxCost+1)
	}
	for name := range dst {
		if _, ok := src[name]; !ok {
			dst[name] = min(dst[name]+srcAny, MaxCost+1)
		}
	}
}

// keyCost returns the child costs of applying s, with this round's W of
// the last round: s's own children plus those of everything it applies
// at the same place.
func (g *costGraph) keyCost(s *jsonschema.Schema, onPath map[*jsonschema.Schema]bool) *keyCost {
	if k, ok := g.keyed[s]; ok {
		return k
	}
	k := &keyCost{members: map[string]int{}, items: map[int]int{}, anyKind: map[byte]int{}}
	if onPath[s] {
		return k
	}
	onPath[s] = true
	own := &keyCost{members: map[string]int{}, items: map[int]int{}, anyKind: map[byte]int{}}
	forChildren(s, func(key childKey, c *jsonschema.Schema) {
		w := g.weight(c)
		switch {
		case key.kind == 'o' && !key.any:
			own.members[key.name] = min(own.members[key.name]+w, MaxCost+1)
		case key.kind == 'a' && !key.any:
			own.items[key.index] = min(own.items[key.index]+w, MaxCost+1)
		default:
			own.anyKind[key.kind] = min(own.anyKind[key.kind]+w, MaxCost+1)
		}
	})
	// A named member also gets the patternProperties that match its
	// name; additionalProperties only when none does. Items at a prefix
	// index get contains and unevaluatedItems but not items.
	for name := range own.members {
		own.members[name] = min(own.members[name]+g.memberExtra(s, name), MaxCost+1)
	}
	for i := range own.items {
		own.items[i] = min(own.items[i]+g.itemExtra(s), MaxCost+1)
	}
	g.steps += k.add(own)
	for _, c := range sameLocation(s, g.anchors) {
		g.steps += k.add(g.keyCost(c, onPath))
	}
	delete(onPath, s)
	g.keyed[s] = k
	return k
}

// memberExtra is the cost of what s applies to its member name besides
// properties[name]: matching patternProperties and unevaluatedProperties.
func (g *costGraph) memberExtra(s *jsonschema.Schema, name string) int {
	n := 0
	for re, c := range s.PatternProperties {
		if re.MatchString(name) {
			n += g.weight(c)
		}
	}
	if s.UnevaluatedProperties != nil {
		n += g.weight(s.UnevaluatedProperties)
	}
	return n
}

// itemExtra is the cost of what s applies to an item at a prefix index
// besides prefixItems: contains and unevaluatedItems.
func (g *costGraph) itemExtra(s *jsonschema.Schema) int {
	n := 0
	for _, c := range []*jsonschema.Schema{s.Contains, s.UnevaluatedItems} {
		if c != nil {
			n += g.weight(c)
		}
	}
	return n
}

// weight is W of the last round, or local before the first.
func (g *costGraph) weight(s *jsonschema.Schema) int {
	if w := g.w[s]; w > 0 {
		return w
	}
	return g.local(s)
}
