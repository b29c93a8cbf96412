package resolve

import (
	"context"
	"fmt"
	"testing"
)

func TestProbe2(t *testing.T) {
	for _, g := range []func(int, int, uint64) (*benchSource, []Dependency){syntheticGraph, churnGraph} {
		src, wants := g(1000, 20, 1)
		s, err := run(context.Background(), wants, src, Options{})
		fmt.Println(err)
		listed, matches, incs, pk := 0, 0, 0, 0
		for _, p := range s.order {
			pk++
			for _, l := range p.listed {
				if l {
					listed++
				}
			}
			matches += len(p.matches)
			incs += len(p.incompats)
		}
		fmt.Println("pkgs", pk, "listed", listed, "matches", matches, "incompat refs", incs, "assign", len(s.assignments), "level", s.level, "learned", len(learned(s)))
	}
}
