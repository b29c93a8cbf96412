package resolve

import (
	"fmt"
	"strings"
)

// explain writes the derivation of root, an incompatibility that rules out
// the project, as numbered prose. It is PubGrub's error reporting algorithm
// (https://github.com/dart-lang/pub/blob/master/doc/solver.md#error-reporting),
// ported from pub's implementation: derivations are written depth first,
// trivial intermediate steps are collapsed, and only facts that are cited
// again later get a line number.
func explain(root *incompat) string {
	w := &writer{
		root:    root,
		uses:    make(map[*incompat]int),
		numbers: make(map[*incompat]int),
	}
	w.count(root)
	if root.external() {
		w.write(root, "Because "+root.String()+", version solving failed.", false)
	} else {
		w.visit(root, false)
	}
	return w.String()
}

type writer struct {
	root    *incompat
	uses    map[*incompat]int // how many derivations each incompatibility feeds
	lines   []line
	numbers map[*incompat]int // line number given to each incompatibility
}

// A line is one sentence of the explanation; num is its line number, or 0.
// An empty msg is a paragraph break.
type line struct {
	msg string
	num int
}

// count fills w.uses for in and its causes.
func (w *writer) count(in *incompat) {
	w.uses[in]++
	if w.uses[in] == 1 && !in.external() {
		w.count(in.causes[0])
		w.count(in.causes[1])
	}
}

// write adds msg, which explains in; numbered lines can be cited later.
func (w *writer) write(in *incompat, msg string, numbered bool) {
	if !numbered {
		w.lines = append(w.lines, line{msg: msg})
		return
	}
	n := len(w.numbers) + 1
	w.numbers[in] = n
	w.lines = append(w.lines, line{msg: msg, num: n})
}

// visit writes the proof of the derived incompatibility in. A conclusion
// ends a linear chain of reasoning and is numbered so it can be cited.
func (w *writer) visit(in *incompat, conclusion bool) {
	numbered := conclusion || w.uses[in] > 1
	conj := "And"
	if conclusion || in == w.root {
		conj = "So,"
	}
	text := in.String()
	c1, c2 := in.causes[0], in.causes[1]

	switch {
	case !c1.external() && !c2.external():
		l1, l2 := w.numbers[c1], w.numbers[c2]
		switch {
		case l1 != 0 && l2 != 0:
			w.write(in, "Because "+and(c1, c2, l1, l2)+", "+text+".", numbered)
		case l1 != 0 || l2 != 0:
			with, without, n := c1, c2, l1
			if l1 == 0 {
				with, without, n = c2, c1, l2
			}
			w.visit(without, false)
			w.write(in, fmt.Sprintf("%s because %s (%d), %s.", conj, with, n, text), numbered)
		case singleLine(c1) || singleLine(c2):
			// The one-line cause can follow the other without a number.
			first, second := c2, c1
			if singleLine(c2) {
				first, second = c1, c2
			}
			w.visit(first, false)
			w.visit(second, false)
			w.write(in, "Thus, "+text+".", numbered)
		default:
			w.visit(c1, true)
			w.lines = append(w.lines, line{})
			w.visit(c2, false)
			w.write(in, fmt.Sprintf("%s because %s (%d), %s.", conj, c1, w.numbers[c1], text), numbered)
		}

	case !c1.external() || !c2.external():
		derived, ext := c1, c2
		if derived.external() {
			derived, ext = c2, c1
		}
		switch n := w.numbers[derived]; {
		case n != 0:
			w.write(in, "Because "+and(ext, derived, 0, n)+", "+text+".", numbered)
		case w.collapsible(derived):
			// Skip the intermediate step: derive in directly from the
			// external causes of both.
			d1, d2 := derived.causes[0], derived.causes[1]
			prior, priorExt := d1, d2
			if prior.external() {
				prior, priorExt = d2, d1
			}
			w.visit(prior, false)
			w.write(in, conj+" because "+and(priorExt, ext, 0, 0)+", "+text+".", numbered)
		default:
			w.visit(derived, false)
			w.write(in, conj+" because "+ext.String()+", "+text+".", numbered)
		}

	default:
		w.write(in, "Because "+and(c1, c2, 0, 0)+", "+text+".", numbered)
	}
}

// collapsible reports whether in, derived from one external and one derived
// cause and used only once, can be left out of the explanation.
func (w *writer) collapsible(in *incompat) bool {
	if w.uses[in] > 1 {
		return false
	}
	c1, c2 := in.causes[0], in.causes[1]
	if c1.external() == c2.external() {
		return false
	}
	complex := c1
	if complex.external() {
		complex = c2
	}
	return w.numbers[complex] == 0
}

// singleLine reports whether in, a derived incompatibility, follows from two
// external facts and so can be explained in one line.
func singleLine(in *incompat) bool {
	return in.causes[0].external() && in.causes[1].external()
}

// String lays the lines out, numbers in a left margin.
func (w *writer) String() string {
	pad := 0
	if n := len(w.numbers); n > 0 {
		pad = len(fmt.Sprintf("(%d) ", n))
	}
	var sb strings.Builder
	blank := false
	for _, l := range w.lines {
		if l.msg == "" {
			if !blank {
				sb.WriteString("\n")
			}
			blank = true
			continue
		}
		blank = false
		prefix := ""
		if l.num != 0 {
			prefix = fmt.Sprintf("(%d)", l.num)
		}
		sb.WriteString(prefix + strings.Repeat(" ", pad-len(prefix)) + l.msg + "\n")
	}
	return strings.TrimSuffix(sb.String(), "\n")
}
