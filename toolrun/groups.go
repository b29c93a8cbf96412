package toolrun

import (
	"os"
	"sync"
)

// Groups is the set of children's process groups running right now, for a
// host that must be able to stop them all at once: on a second Ctrl-C it
// calls KillAll and exits without waiting for the graceful stop that
// cancelling a run's ctx starts. Give the same *Groups to every run
// through [Options.Groups]. The zero value is ready to use; it is safe for
// concurrent use.
type Groups struct {
	mu    sync.Mutex
	procs map[*os.Process]struct{}
}

// add records a started child.
func (g *Groups) add(p *os.Process) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.procs == nil {
		g.procs = map[*os.Process]struct{}{}
	}
	g.procs[p] = struct{}{}
}

// remove forgets a child whose run is ending. It is called before the
// run's own final sweep of the group, so a group is never signalled by
// KillAll after its id could have been reused.
func (g *Groups) remove(p *os.Process) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.procs, p)
}

// KillAll kills (SIGKILL where there are process groups) every process
// group still running and returns how many there were. It calls before,
// when not nil, with that number before it kills any: a host that says
// why it exits must say it before a run it kills can end and let the
// host print something else first.
func (g *Groups) KillAll(before func(n int)) int {
	if g == nil {
		if before != nil {
			before(0)
		}
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if before != nil {
		before(len(g.procs))
	}
	for p := range g.procs {
		killGroup(p)
	}
	return len(g.procs)
}
