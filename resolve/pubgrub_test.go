package resolve

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// learned lists the incompatibilities conflict resolution added, in words.
func learned(s *solver) []string {
	var out []string
	for _, p := range s.order {
		for _, in := range p.incompats {
			if in.kind == kindConflict && !slices.Contains(out, in.String()) {
				out = append(out, in.String())
			}
		}
	}
	return out
}

// The examples of https://github.com/dart-lang/pub/blob/master/doc/solver.md#examples
// that have a solution.
func TestPubGrubExamples(t *testing.T) {
	tests := []struct {
		name        string
		catalog     catalog
		wants       []string
		want        string
		wantLearned []string
	}{
		{
			name: "no conflicts",
			catalog: catalog{
				"foo": {"1.0.0": {"bar": "^1.0.0"}},
				"bar": {"1.0.0": nil, "2.0.0": nil},
			},
			wants: []string{"foo ^1.0.0"},
			want:  "bar 1.0.0, foo 1.0.0",
		},
		{
			name: "avoiding conflict during decision making",
			catalog: catalog{
				"foo": {"1.0.0": nil, "1.1.0": {"bar": "^2.0.0"}},
				"bar": {"1.0.0": nil, "1.1.0": nil, "2.0.0": nil},
			},
			wants: []string{"foo ^1.0.0", "bar ^1.0.0"},
			want:  "bar 1.1.0, foo 1.0.0",
		},
		{
			name: "performing conflict resolution",
			catalog: catalog{
				"foo": {"1.0.0": nil, "2.0.0": {"bar": "^1.0.0"}},
				"bar": {"1.0.0": {"foo": "^1.0.0"}},
			},
			wants:       []string{"foo >=1.0.0"},
			want:        "foo 1.0.0",
			wantLearned: []string{"foo 2.0.0 is forbidden"},
		},
		{
			name: "conflict resolution with a partial satisfier",
			catalog: catalog{
				"foo":    {"1.0.0": nil, "1.1.0": {"left": "^1.0.0", "right": "^1.0.0"}},
				"left":   {"1.0.0": {"shared": ">=1.0.0"}},
				"right":  {"1.0.0": {"shared": "<2.0.0"}},
				"shared": {"2.0.0": nil, "1.0.0": {"target": "^1.0.0"}},
				"target": {"2.0.0": nil, "1.0.0": nil},
			},
			wants: []string{"foo ^1.0.0", "target ^2.0.0"},
			want:  "foo 1.0.0, target 2.0.0",
			// Terms are exact sets of published versions, so shared <2.0.0
			// is exactly shared 1.0.0 here and satisfies it on its own: the
			// dependency itself is the root cause and nothing new is learned.
		},
		{
			// The same, with an extra shared 0.5.0 so that shared 1.0.0 is
			// only satisfied jointly by shared >=1.0.0 and shared <2.0.0, as
			// in pub's walk-through.
			name: "conflict resolution with a partial satisfier, exact sets",
			catalog: catalog{
				"foo":    {"1.0.0": nil, "1.1.0": {"left": "^1.0.0", "right": "^1.0.0"}},
				"left":   {"1.0.0": {"shared": ">=1.0.0"}},
				"right":  {"1.0.0": {"shared": "<2.0.0"}},
				"shared": {"2.0.0": nil, "1.0.0": {"target": "^1.0.0"}, "0.5.0": nil},
				"target": {"2.0.0": nil, "1.0.0": nil},
			},
			wants: []string{"foo ^1.0.0", "target ^2.0.0"},
			want:  "foo 1.0.0, target 2.0.0",
			wantLearned: []string{
				"every version of right requires target ^1.0.0 or shared 0.5.0",
				"foo 1.1.0 requires target ^1.0.0",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSolver(newMemSource(tt.catalog), wants(t, tt.wants...), Options{})
			if err := s.run(context.Background()); err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got := summary(s.solution()); got != tt.want {
				t.Errorf("Resolve = %q; want %q", got, tt.want)
			}
			got := learned(s)
			slices.Sort(got)
			if !slices.Equal(got, tt.wantLearned) {
				t.Errorf("learned %q; want %q", got, tt.wantLearned)
			}
		})
	}
}

// Failures, with the explanation a person reads.
func TestNoSolutionExplanations(t *testing.T) {
	tests := []struct {
		name    string
		catalog catalog
		wants   []string
		want    string
	}{
		{
			// pub's "Linear Error Reporting" example.
			name: "linear error reporting",
			catalog: catalog{
				"foo": {"1.0.0": {"bar": "^2.0.0"}},
				"bar": {"2.0.0": {"baz": "^3.0.0"}},
				"baz": {"1.0.0": nil, "3.0.0": nil},
			},
			wants: []string{"foo ^1.0.0", "baz ^1.0.0"},
			want: "Because every version of foo depends on bar ^2.0.0 which depends on baz ^3.0.0, every version of foo requires baz ^3.0.0.\n" +
				"So, because the project depends on both baz ^1.0.0 and foo ^1.0.0, version solving failed.",
		},
		{
			// pub's "Branching Error Reporting" example.
			name: "branching error reporting",
			catalog: catalog{
				"foo": {"1.0.0": {"a": "^1.0.0", "b": "^1.0.0"}, "1.1.0": {"x": "^1.0.0", "y": "^1.0.0"}},
				"a":   {"1.0.0": {"b": "^2.0.0"}},
				"b":   {"1.0.0": nil, "2.0.0": nil},
				"x":   {"1.0.0": {"y": "^2.0.0"}},
				"y":   {"1.0.0": nil, "2.0.0": nil},
			},
			wants: []string{"foo ^1.0.0"},
			want: "    Because foo 1.0.0 depends on a ^1.0.0 which depends on b ^2.0.0, foo 1.0.0 requires b ^2.0.0.\n" +
				"(1) So, because foo 1.0.0 depends on b ^1.0.0, foo 1.0.0 is forbidden.\n" +
				"\n" +
				"    Because foo 1.1.0 depends on x ^1.0.0 which depends on y ^2.0.0, foo 1.1.0 requires y ^2.0.0.\n" +
				"    And because foo 1.1.0 depends on y ^1.0.0, foo 1.1.0 is forbidden.\n" +
				"    And because foo 1.0.0 is forbidden (1), foo is forbidden.\n" +
				"    So, because the project depends on foo ^1.0.0, version solving failed.",
		},
		{
			name: "two wants need different versions of one skill",
			catalog: catalog{
				"a": {"1.0.0": {"b": "^2.0.0"}},
				"c": {"1.0.0": {"b": "^1.0.0"}},
				"b": {"1.0.0": nil, "2.0.0": nil},
			},
			wants: []string{"a ^1.0.0", "c ^1.0.0"},
			want: "Because every version of a depends on b ^2.0.0 and every version of c depends on b ^1.0.0, a is incompatible with c.\n" +
				"So, because the project depends on both a ^1.0.0 and c ^1.0.0, version solving failed.",
		},
		{
			name:    "missing version of a want",
			catalog: catalog{"x": {"1.0.0": nil, "2.0.0": nil}},
			wants:   []string{"x ^3.0.0"},
			want:    "Because the project depends on x ^3.0.0 which doesn't match any versions, version solving failed.",
		},
		{
			name: "missing version of a dependency",
			catalog: catalog{
				"a": {"1.0.0": {"x": "^3.0.0"}, "1.1.0": {"x": "^3.0.0"}},
				"x": {"1.0.0": nil},
			},
			wants: []string{"a ^1.0.0"},
			want: "Because a 1.0.0 depends on x ^3.0.0 which doesn't match any versions, a 1.0.0 is forbidden.\n" +
				"Because a 1.1.0 depends on x ^3.0.0 which doesn't match any versions, a 1.1.0 is forbidden.\n" +
				"Thus, a is forbidden.\n" +
				"So, because the project depends on a ^1.0.0, version solving failed.",
		},
		{
			name:    "unknown dependency",
			catalog: catalog{"a": {"1.0.0": {"ghost": "^1.0.0"}}},
			wants:   []string{"a ^1.0.0"},
			want: "Because every version of a depends on ghost ^1.0.0 which doesn't exist, a is forbidden.\n" +
				"So, because the project depends on a ^1.0.0, version solving failed.",
		},
		{
			name:    "version depends on another version of itself",
			catalog: catalog{"a": {"1.0.0": {"a": "^2.0.0"}, "2.0.0": nil}},
			wants:   []string{"a ^1.0.0"},
			want:    "Because the project depends on a ^1.0.0 which depends on a ^2.0.0, version solving failed.",
		},
		{
			name:    "pre-release not chosen unless allowed",
			catalog: catalog{"a": {"1.0.0": nil, "2.0.0-beta.1": nil}},
			wants:   []string{"a ^2.0.0"},
			want:    "Because the project depends on a ^2.0.0 which doesn't match any versions, version solving failed.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(context.Background(), wants(t, tt.wants...), newMemSource(tt.catalog), Options{})
			var nse *NoSolutionError
			if !errors.As(err, &nse) {
				t.Fatalf("Resolve error = %v; want a *NoSolutionError", err)
			}
			if got := err.Error(); got != tt.want {
				t.Errorf("explanation:\n%s\nwant:\n%s", got, tt.want)
			}
			if nse.Derivation == nil || nse.Derivation.Fact != "version solving failed" {
				t.Errorf("Derivation = %+v; want a root stating that version solving failed", nse.Derivation)
			}
		})
	}
}

func TestNoSolutionDerivation(t *testing.T) {
	src := newMemSource(catalog{
		"foo": {"1.0.0": {"bar": "^2.0.0"}},
		"bar": {"2.0.0": {"baz": "^3.0.0"}},
		"baz": {"1.0.0": nil, "3.0.0": nil},
	})
	_, err := Resolve(context.Background(), wants(t, "foo ^1.0.0", "baz ^1.0.0"), src, Options{})
	var nse *NoSolutionError
	if !errors.As(err, &nse) {
		t.Fatalf("Resolve error = %v; want a *NoSolutionError", err)
	}
	var leaves []string
	var walk func(d *Derivation)
	walk = func(d *Derivation) {
		if len(d.Causes) == 0 {
			leaves = append(leaves, d.Fact)
			return
		}
		if len(d.Causes) != 2 {
			t.Errorf("%q has %d causes; want 2", d.Fact, len(d.Causes))
		}
		for _, c := range d.Causes {
			walk(c)
		}
	}
	walk(nse.Derivation)
	slices.Sort(leaves)
	want := []string{
		"every version of bar depends on baz ^3.0.0",
		"every version of foo depends on bar ^2.0.0",
		"the project depends on baz ^1.0.0",
		"the project depends on foo ^1.0.0",
	}
	if !slices.Equal(leaves, want) {
		t.Errorf("external facts = %q; want %q", leaves, want)
	}
}
