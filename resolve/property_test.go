package resolve

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// randomCatalog builds a small random catalog whose constraints mix carets,
// ranges, exact versions and unions over a few versions per skill.
func randomCatalog(rng *rand.Rand, skills, versions int) (catalog, []string) {
	name := func(i int) string { return fmt.Sprintf("s%d", i) }
	constraint := func() string {
		a, b := 1+rng.IntN(versions), 1+rng.IntN(versions)
		switch rng.IntN(6) {
		case 0:
			return fmt.Sprintf("^%d.0.0", a)
		case 1:
			return fmt.Sprintf(">=%d.0.0", a)
		case 2:
			return fmt.Sprintf("<%d.0.0", a+1)
		case 3:
			return fmt.Sprintf("=%d.0.0", a)
		case 4:
			return fmt.Sprintf("^%d.0.0 || ^%d.0.0", a, b)
		default:
			return fmt.Sprintf(">=%d.0.0 <%d.0.0", min(a, b), max(a, b)+1)
		}
	}
	c := catalog{}
	for i := range skills {
		c[name(i)] = map[string]map[string]string{}
		for v := 1; v <= versions; v++ {
			if rng.IntN(5) == 0 && v > 1 {
				continue // gaps in the published versions
			}
			deps := map[string]string{}
			for range rng.IntN(3) {
				deps[name(rng.IntN(skills))] = constraint()
			}
			c[name(i)][fmt.Sprintf("%d.0.0", v)] = deps
		}
	}
	var wants []string
	for range 1 + rng.IntN(2) {
		wants = append(wants, name(rng.IntN(skills))+" "+constraint())
	}
	return c, wants
}

// satisfiable reports by brute force whether some choice of versions (each
// skill absent or at one version) meets the wants and every chosen
// version's dependencies.
func satisfiable(c catalog, ws []Dependency, skills int) bool {
	// A requirement is a dependency with its matching versions worked out.
	type requirement struct {
		name    string
		allowed map[string]bool
	}
	require := func(d Dependency) requirement {
		r := requirement{d.Name, map[string]bool{}}
		for v := range c[d.Name] {
			r.allowed[v] = d.Constraint == nil || d.Constraint.Check(semver.MustParse(v))
		}
		return r
	}
	var roots []requirement
	for _, w := range ws {
		roots = append(roots, require(w))
	}
	deps := map[string][]requirement{} // "name version" -> depends_on
	for name, versions := range c {
		for v, ds := range versions {
			for dep, con := range ds {
				d, _ := NewDependency(dep, con)
				deps[name+" "+v] = append(deps[name+" "+v], require(d))
			}
		}
	}

	names := make([]string, skills)
	options := make([][]string, skills)
	for i := range skills {
		names[i] = fmt.Sprintf("s%d", i)
		options[i] = []string{""} // absent
		for v := range c[names[i]] {
			options[i] = append(options[i], v)
		}
	}
	chosen := map[string]string{}
	ok := func(r requirement) bool { return r.allowed[chosen[r.name]] }
	var try func(i int) bool
	try = func(i int) bool {
		if i < skills {
			for _, v := range options[i] {
				chosen[names[i]] = v
				if try(i + 1) {
					return true
				}
			}
			return false
		}
		for _, r := range roots {
			if !ok(r) {
				return false
			}
		}
		for name, v := range chosen {
			for _, r := range deps[name+" "+v] {
				if v != "" && !ok(r) {
					return false
				}
			}
		}
		return true
	}
	return try(0)
}

func TestResolveAgainstBruteForce(t *testing.T) {
	const skills, versions = 5, 4
	rng := rand.New(rand.NewPCG(7, 11))
	solved, failed := 0, 0
	for round := range 3000 {
		c, wantSpecs := randomCatalog(rng, skills, versions)
		ws := wants(t, wantSpecs...)
		var opts Options
		if round%2 == 1 { // a lock is only a preference
			opts.Locked = map[string]*semver.Version{}
			for i := range skills {
				opts.Locked[fmt.Sprintf("s%d", i)] = semver.New(uint64(1+rng.IntN(versions)), 0, 0, "", "")
			}
		}
		// Once as configured, once backtracking chronologically after
		// every conflict, which exercises re-derivation hard.
		for _, backjump := range []int{maxBackjump, 0} {
			s := newSolver(newMemSource(c), ws, opts)
			s.chronological = backjump
			err := s.run(context.Background())
			var nse *NoSolutionError
			switch {
			case err == nil:
				solved++
				if msg := invalid(c, ws, s.solution()); msg != "" {
					t.Fatalf("round %d, backjump %d: %s\ncatalog %v\nwants %q", round, backjump, msg, c, wantSpecs)
				}
			case errors.As(err, &nse):
				failed++
				if satisfiable(c, ws, skills) {
					t.Fatalf("round %d, backjump %d: no solution reported for a satisfiable graph:\n%v\ncatalog %v\nwants %q", round, backjump, err, c, wantSpecs)
				}
			default:
				t.Fatalf("round %d, backjump %d: %v", round, backjump, err)
			}
		}
	}
	t.Logf("solved %d, failed %d", solved, failed)
	if solved == 0 || failed == 0 {
		t.Errorf("solved %d, failed %d; want a mix", solved, failed)
	}
}

// invalid returns what is wrong with sol, or "".
func invalid(c catalog, ws []Dependency, sol *Solution) string {
	chosen := map[string]*semver.Version{}
	for _, k := range sol.Skills {
		chosen[k.Name] = k.Version
	}
	check := func(who string, d Dependency) string {
		v := chosen[d.Name]
		if v == nil || (d.Constraint != nil && !d.Constraint.Check(v)) {
			return fmt.Sprintf("%s needs %s, solution has %v", who, d, v)
		}
		return ""
	}
	for _, w := range ws {
		if msg := check("the project", w); msg != "" {
			return msg
		}
	}
	for _, k := range sol.Skills {
		if _, ok := c[k.Name][k.Version.Original()]; !ok {
			return fmt.Sprintf("%s %s is not published", k.Name, k.Version)
		}
		for _, d := range k.Dependencies {
			if msg := check(k.Name+" "+k.Version.String(), d); msg != "" {
				return msg
			}
		}
		if len(sol.Why(k.Name)) == 0 {
			return k.Name + " is not reachable from the wants"
		}
	}
	return ""
}
