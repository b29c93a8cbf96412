package resolve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// benchSource is a Source over pre-parsed data, so benchmarks measure the
// solver rather than constraint parsing.
type benchSource struct {
	versions map[string][]*semver.Version
	deps     map[string]map[*semver.Version][]Dependency
}

func (b *benchSource) Versions(ctx context.Context, name string) ([]*semver.Version, error) {
	vs, ok := b.versions[name]
	if !ok {
		return nil, fmt.Errorf("skill %s: %w", name, ErrNotFound)
	}
	return vs, nil
}

func (b *benchSource) Dependencies(ctx context.Context, name string, v *semver.Version) ([]Dependency, error) {
	return b.deps[name][v], nil
}

func (b *benchSource) add(name, version string, deps ...Dependency) {
	v := semver.MustParse(version)
	b.versions[name] = append(b.versions[name], v)
	if b.deps[name] == nil {
		b.deps[name] = map[*semver.Version][]Dependency{}
	}
	b.deps[name][v] = deps
}

func newBenchSource() *benchSource {
	return &benchSource{versions: map[string][]*semver.Version{}, deps: map[string]map[*semver.Version][]Dependency{}}
}

func mustDep(name, constraint string) Dependency {
	d, err := NewDependency(name, constraint)
	if err != nil {
		panic(err)
	}
	return d
}

// syntheticGraph builds skills × versions published skills from a fixed
// seed, shaped like a real registry: versions run 1.0.0 … 1.9.0, 2.0.0 …
// 2.9.0 and so on, and each skill's depends_on evolves slowly from one
// version to the next: a few dependencies on later skills, whose lower
// bounds get bumped, which are sometimes capped or added, and which all
// move to the new major when the depender does (as after a platform
// upgrade). Dependers disagree often enough that the solver backtracks, but
// a solution always exists. It returns the source and the project's wants:
// ten skills at any version.
func syntheticGraph(skills, versions int, seed uint64) (*benchSource, []Dependency) {
	rng := rand.New(rand.NewPCG(seed, seed))
	src := newBenchSource()
	name := func(i int) string { return fmt.Sprintf("skill%04d", i) }
	type req struct {
		target       int
		major, minor int // lower bound: ^major.minor.0
		capped       bool
	}
	text := func(r req) string {
		if r.capped {
			return fmt.Sprintf(">=1.0.0 <%d.%d.0", r.major, r.minor+1)
		}
		return fmt.Sprintf("^%d.%d.0", r.major, r.minor)
	}
	for i := range skills {
		var reqs []req
		addReq := func(major int) {
			if i >= skills-1 {
				return
			}
			t := i + 1 + rng.IntN(min(skills-i-1, 200))
			for _, r := range reqs {
				if r.target == t {
					return
				}
			}
			reqs = append(reqs, req{target: t, major: major, minor: rng.IntN(5)})
		}
		for range 1 + rng.IntN(4) {
			addReq(1)
		}
		// Every x.0.0 depends on ^x.0.0 only, so choosing x.0.0 everywhere
		// always works: the graph has a solution, just not an obvious one.
		for v := range versions {
			major, minor := 1+v/10, v%10
			for k := range reqs {
				r := &reqs[k]
				switch p := rng.IntN(100); {
				case minor == 0: // a new major moves to the new majors
					*r = req{target: r.target, major: major}
				case p < 15: // bump the lower bound
					r.minor = min(r.minor+1+rng.IntN(2), 9)
				case p < 17: // cap the range for a while
					r.capped = !r.capped
				}
			}
			if minor > 0 && rng.IntN(100) < 8 {
				addReq(major)
			}
			deps := make([]Dependency, len(reqs))
			for k, r := range reqs {
				deps[k] = mustDep(name(r.target), text(r))
			}
			src.add(name(i), fmt.Sprintf("%d.%d.0", major, minor), deps...)
		}
	}
	var wants []Dependency
	for i := range 10 {
		wants = append(wants, mustDep(name(i*3), ""))
	}
	return src, wants
}

// churnGraph is syntheticGraph's worst case: every version draws fresh
// random dependencies, so nothing repeats from one version to the next.
func churnGraph(skills, versions int, seed uint64) (*benchSource, []Dependency) {
	rng := rand.New(rand.NewPCG(seed, seed))
	src := newBenchSource()
	name := func(i int) string { return fmt.Sprintf("skill%04d", i) }
	for i := range skills {
		for v := range versions {
			major, minor := 1+v/10, v%10
			var deps []Dependency
			for range 1 + rng.IntN(4) {
				j := i + 1 + rng.IntN(min(skills-i-1, 200)+1)
				if j >= skills {
					continue
				}
				var c string
				switch r := rng.IntN(100); {
				case r < 70:
					c = fmt.Sprintf("^%d.%d.0", major, rng.IntN(5))
				case r < 85:
					c = fmt.Sprintf(">=1.%d.0", rng.IntN(10))
				case r < 95:
					c = fmt.Sprintf(">=1.0.0 <%d.%d.0", major, 1+rng.IntN(9))
				default:
					c = fmt.Sprintf("^%d.0.0", max(1, major-1))
				}
				deps = append(deps, mustDep(name(j), c))
			}
			src.add(name(i), fmt.Sprintf("%d.%d.0", major, minor), deps...)
		}
	}
	var wants []Dependency
	for i := range 10 {
		wants = append(wants, mustDep(name(i*3), ""))
	}
	return src, wants
}

// pigeonhole builds an unsatisfiable graph: n pigeons must each sit in one
// of n-1 holes and no hole takes two. Pigeon i at version h sits in hole h,
// which it claims by depending on hole h at exactly version i. Proving there
// is no solution takes the solver a great deal of backtracking.
func pigeonhole(n int) (*benchSource, []Dependency) {
	src := newBenchSource()
	var wants []Dependency
	for i := 1; i <= n; i++ {
		pigeon := fmt.Sprintf("pigeon%d", i)
		for h := 1; h < n; h++ {
			src.add(pigeon, fmt.Sprintf("%d.0.0", h), mustDep(fmt.Sprintf("hole%d", h), fmt.Sprintf("=%d.0.0", i)))
		}
		wants = append(wants, mustDep(pigeon, ""))
	}
	for h := 1; h < n; h++ {
		for i := 1; i <= n; i++ {
			src.add(fmt.Sprintf("hole%d", h), fmt.Sprintf("%d.0.0", i))
		}
	}
	return src, wants
}

func BenchmarkResolveSynthetic(b *testing.B) {
	src, wants := syntheticGraph(1000, 20, 1)
	var sol *Solution
	for b.Loop() {
		var err error
		if sol, err = Resolve(context.Background(), wants, src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(sol.Skills)), "skills")
}

func BenchmarkResolveChurn(b *testing.B) {
	src, wants := churnGraph(1000, 20, 1)
	var sol *Solution
	for b.Loop() {
		var err error
		if sol, err = Resolve(context.Background(), wants, src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(sol.Skills)), "skills")
}

func BenchmarkResolvePigeonhole(b *testing.B) {
	src, wants := pigeonhole(pigeons)
	var err error
	for b.Loop() {
		_, err = Resolve(context.Background(), wants, src, Options{})
		var nse *NoSolutionError
		if !errors.As(err, &nse) {
			b.Fatalf("Resolve error = %v; want a *NoSolutionError", err)
		}
	}
	var nse *NoSolutionError
	errors.As(err, &nse)
	b.ReportMetric(float64(len(err.Error())), "explanation-bytes")
	b.ReportMetric(float64(len(fullText(nse))), "full-explanation-bytes")
}

// pigeons sizes the pathological benchmark.
const pigeons = 8

// TestBenchmarkGraphs checks what the benchmarks rely on, with and without
// chronological backtracking: the synthetic graphs resolve (the solver
// verifies every chosen version's dependencies before returning) and the
// pigeonhole fails with an explanation.
func TestBenchmarkGraphs(t *testing.T) {
	graphs := []struct {
		name  string
		build func() (*benchSource, []Dependency)
		fails bool
	}{
		{"synthetic", func() (*benchSource, []Dependency) { return syntheticGraph(1000, 20, 1) }, false},
		{"churn", func() (*benchSource, []Dependency) { return churnGraph(1000, 20, 1) }, false},
		{"pigeonhole", func() (*benchSource, []Dependency) { return pigeonhole(6) }, true},
	}
	for _, g := range graphs {
		src, wants := g.build()
		for _, backjump := range []int{maxBackjump, math.MaxInt} {
			s := newSolver(src, wants, Options{})
			s.chronological = backjump
			err := s.run(context.Background())
			var nse *NoSolutionError
			switch {
			case g.fails && !errors.As(err, &nse):
				t.Errorf("%s, backjump %d: error = %v; want a *NoSolutionError", g.name, backjump, err)
			case g.fails && !strings.HasSuffix(fullText(nse), "version solving failed."):
				t.Errorf("%s, backjump %d: explanation ends %q", g.name, backjump, fullText(nse)[max(0, len(fullText(nse))-80):])
			case !g.fails && err != nil:
				t.Errorf("%s, backjump %d: %v", g.name, backjump, err)
			case !g.fails && len(s.solution().Skills) < 500:
				t.Errorf("%s, backjump %d: %d skills; want most of the graph", g.name, backjump, len(s.solution().Skills))
			}
		}
	}
}
