package resolve_test

import (
	"context"
	"fmt"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/resolve"
)

// registry is a tiny in-memory resolve.Source:
// name -> version -> depends_on (name -> constraint).
type registry map[string]map[string]map[string]string

func (r registry) Versions(ctx context.Context, name string) ([]*semver.Version, error) {
	if _, ok := r[name]; !ok {
		return nil, fmt.Errorf("skill %s: %w", name, resolve.ErrNotFound)
	}
	var vs []*semver.Version
	for v := range r[name] {
		vs = append(vs, semver.MustParse(v))
	}
	return vs, nil
}

func (r registry) Dependencies(ctx context.Context, name string, v *semver.Version) ([]resolve.Dependency, error) {
	var deps []resolve.Dependency
	for dep, c := range r[name][v.Original()] {
		d, err := resolve.NewDependency(dep, c)
		if err != nil {
			return nil, err
		}
		deps = append(deps, d)
	}
	return deps, nil
}

func ExampleResolve() {
	src := registry{
		"pdf":    {"1.0.0": {"ocr": "^2.0.0"}, "1.2.0": {"ocr": "^2.1.0", "fonts": "~1.4"}, "2.0.0-rc.1": nil},
		"ocr":    {"2.0.0": nil, "2.1.0": nil, "2.3.1": nil, "3.0.0": nil},
		"fonts":  {"1.4.0": nil, "1.4.7": nil, "1.5.0": nil},
		"slides": {"0.3.0": {"fonts": ">=1.4.0"}},
	}
	pdf, _ := resolve.NewDependency("pdf", "^1.0.0")
	slides, _ := resolve.NewDependency("slides", "")
	opts := resolve.Options{Locked: map[string]*semver.Version{"ocr": semver.MustParse("2.1.0")}}

	sol, err := resolve.Resolve(context.Background(), []resolve.Dependency{pdf, slides}, src, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range sol.Skills {
		fmt.Println(s.Name, s.Version)
	}
	fmt.Println("why fonts:", sol.Why("fonts"))

	// Asking for a version nobody published explains why it fails.
	ocr, _ := resolve.NewDependency("ocr", "^4.0.0")
	_, err = resolve.Resolve(context.Background(), []resolve.Dependency{pdf, ocr}, src, resolve.Options{})
	fmt.Println(err)
	// Output:
	// fonts 1.4.7
	// ocr 2.1.0
	// pdf 1.2.0
	// slides 0.3.0
	// why fonts: [[pdf fonts] [slides fonts]]
	// Because the project depends on ocr ^4.0.0 which doesn't match any versions, version solving failed.
}
