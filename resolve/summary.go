package resolve

import (
	"fmt"
	"slices"
	"strings"
)

// Bounds of the short explanation. A derivation within the first two is
// shown whole; a longer one (a pathological conflict can take hundreds of
// kilobytes) is summarised within all of them.
const (
	// shortMaxLines is the most lines of a derivation shown whole, and
	// of a summary.
	shortMaxLines = 20
	// shortMaxBytes is the most bytes of a derivation shown whole; a
	// summary's lines are each cut to shortMaxLine.
	shortMaxBytes = 4000
	shortMaxLine  = 240
	// shortMaxFacts is the most facts a summary lists, and shortMaxNames
	// the most skills it names.
	shortMaxFacts = 10
	shortMaxNames = 12
)

// summarize returns the explanation a person reads first: full itself when
// it is short, else a bounded summary of root's derivation, which names
// the skills involved and the facts nearest the conclusion, and says how
// to see the whole derivation.
func summarize(root *incompat, full string) string {
	lines := strings.Count(full, "\n") + 1
	if lines <= shortMaxLines && len(full) <= shortMaxBytes {
		return full
	}
	facts, names := closestFacts(root)
	var sb strings.Builder
	if root.external() {
		sb.WriteString(cut("Because "+root.String()+", version solving failed.") + "\n")
	} else {
		sb.WriteString(cut("Because "+and(root.causes[0], root.causes[1], 0, 0)+", version solving failed.") + "\n")
	}
	shown := names
	if len(shown) > shortMaxNames {
		shown = shown[:shortMaxNames]
	}
	more := ""
	if n := len(names) - len(shown); n > 0 {
		more = fmt.Sprintf(" and %d more", n)
	}
	fmt.Fprintf(&sb, "The conflict involves %d skills: %s%s.\n", len(names), strings.Join(shown, ", "), more)
	sb.WriteString("It rests on these facts, nearest the conclusion first:\n")
	for i, f := range facts {
		if i == shortMaxFacts {
			fmt.Fprintf(&sb, "  ... and %d more facts.\n", len(facts)-i)
			break
		}
		sb.WriteString(cut("  - "+f) + "\n")
	}
	fmt.Fprintf(&sb, "The full derivation is %d lines (%d bytes): run the command again with --verbose to see it.", lines, len(full))
	return sb.String()
}

// closestFacts returns the distinct external facts root's derivation
// rests on, breadth first from root (those nearest the conclusion first),
// and the names of the skills they mention, sorted.
func closestFacts(root *incompat) (facts, names []string) {
	seen := map[*incompat]bool{root: true}
	seenFact, seenName := map[string]bool{}, map[string]bool{}
	queue := []*incompat{root}
	for len(queue) > 0 {
		in := queue[0]
		queue = queue[1:]
		if in.external() {
			if s := in.String(); !seenFact[s] {
				seenFact[s] = true
				facts = append(facts, s)
			}
			for _, t := range in.terms {
				if !t.p.root && !seenName[t.p.name] {
					seenName[t.p.name] = true
					names = append(names, t.p.name)
				}
			}
			continue
		}
		for _, c := range in.causes {
			if !seen[c] {
				seen[c] = true
				queue = append(queue, c)
			}
		}
	}
	slices.Sort(names)
	return facts, names
}

// cut shortens s to shortMaxLine bytes, at a rune boundary, marking the cut.
func cut(s string) string {
	if len(s) <= shortMaxLine {
		return s
	}
	i := shortMaxLine - len("...")
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "..."
}
