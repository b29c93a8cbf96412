package resolve

import (
	"context"
	"fmt"
	"testing"
)

func TestProbe4(t *testing.T) {
	defer func() { orderMode = 0 }()
	for mode := range 1 {
		orderMode = mode
		for _, g := range []struct {
			name string
			f    func() (*benchSource, []Dependency)
		}{
			{"synthetic", func() (*benchSource, []Dependency) { return syntheticGraph(1000, 20, 1) }},
			{"churn", func() (*benchSource, []Dependency) { return churnGraph(1000, 20, 1) }},
			{"pigeon8", func() (*benchSource, []Dependency) { return pigeonhole(8) }},
		} {
			src, wants := g.f()
			cntAlmost, cntRel, cntCheck, cntMatch, cntResolve, cntDerive, cntJumps, cntJump = 0, 0, 0, 0, 0, 0, 0, 0
			_, err := Resolve(context.Background(), wants, src, Options{})
			fmt.Printf("mode %d %-10s ok=%v almost %8d derive %7d resolve %5d match %5d jumps %4d levels %6d\n", mode, g.name, err == nil, cntAlmost, cntDerive, cntResolve, cntMatch, cntJumps, cntJump)
		}
	}
}
