package resolve

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

func cpu() time.Duration {
	var r syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r)
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

func TestProbe3(t *testing.T) {
	for _, g := range []struct {
		name string
		f    func() (*benchSource, []Dependency)
	}{
		{"synthetic", func() (*benchSource, []Dependency) { return syntheticGraph(1000, 20, 1) }},
		{"churn", func() (*benchSource, []Dependency) { return churnGraph(1000, 20, 1) }},
		{"pigeon7", func() (*benchSource, []Dependency) { return pigeonhole(7) }},
		{"pigeon8", func() (*benchSource, []Dependency) { return pigeonhole(8) }},
	} {
		src, wants := g.f()
		Resolve(context.Background(), wants, src, Options{})
		const n = 10
		c0, w0 := cpu(), time.Now()
		for range n {
			Resolve(context.Background(), wants, src, Options{})
		}
		fmt.Printf("%-10s cpu %v/op wall %v/op\n", g.name, (cpu()-c0)/n, time.Since(w0)/n)
	}
}
