package resolve

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// catalog describes published skills for tests:
// name -> version -> dependency name -> constraint.
type catalog map[string]map[string]map[string]string

// memSource is an in-memory Source over a catalog that counts its calls.
type memSource struct {
	skills       catalog
	versionCalls map[string]int
	depCalls     map[string]int
}

func newMemSource(skills catalog) *memSource {
	return &memSource{skills: skills, versionCalls: map[string]int{}, depCalls: map[string]int{}}
}

func (m *memSource) Versions(ctx context.Context, name string) ([]*semver.Version, error) {
	m.versionCalls[name]++
	versions, ok := m.skills[name]
	if !ok {
		return nil, fmt.Errorf("skill %s: %w", name, ErrNotFound)
	}
	var vs []*semver.Version
	for v := range versions { // map order: the solver must not care
		vs = append(vs, semver.MustParse(v))
	}
	return vs, nil
}

func (m *memSource) Dependencies(ctx context.Context, name string, v *semver.Version) ([]Dependency, error) {
	m.depCalls[name+" "+v.String()]++
	for version, deps := range m.skills[name] {
		if !semver.MustParse(version).Equal(v) {
			continue
		}
		var out []Dependency
		for dep, c := range deps {
			d, err := NewDependency(dep, c)
			if err != nil {
				return nil, err
			}
			out = append(out, d)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s %s: %w", name, v, ErrNotFound)
}

// wants parses "name constraint" pairs, e.g. wants(t, "foo ^1.0.0", "bar").
func wants(t testing.TB, specs ...string) []Dependency {
	t.Helper()
	var ds []Dependency
	for _, s := range specs {
		name, c, _ := strings.Cut(s, " ")
		d, err := NewDependency(name, c)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	return ds
}

// summary renders a solution as "a 1.0.0, b 2.0.0".
func summary(sol *Solution) string {
	var parts []string
	for _, k := range sol.Skills {
		parts = append(parts, k.Name+" "+k.Version.String())
	}
	return strings.Join(parts, ", ")
}

// locks parses "name version" pairs into Options.Locked.
func locks(specs ...string) map[string]*semver.Version {
	m := map[string]*semver.Version{}
	for _, s := range specs {
		name, v, _ := strings.Cut(s, " ")
		m[name] = semver.MustParse(v)
	}
	return m
}
