package resolve

import (
	"context"
	"slices"
	"testing"
)

func TestWhy(t *testing.T) {
	src := newMemSource(catalog{
		"a": {"1.0.0": {"b": "^1"}},
		"b": {"1.0.0": {"c": "^1"}},
		"c": {"1.0.0": {"a": "^1"}}, // a cycle back to a want
		"d": {"1.0.0": {"c": "^1", "e": "^1"}},
		"e": {"1.0.0": nil},
	})
	sol, err := Resolve(context.Background(), wants(t, "d", "a"), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		want [][]string
	}{
		{"a", [][]string{{"a"}, {"d", "c", "a"}}},
		{"b", [][]string{{"a", "b"}}},
		{"c", [][]string{{"a", "b", "c"}, {"d", "c"}}},
		{"d", [][]string{{"d"}}},
		{"e", [][]string{{"d", "e"}}},
		{"zzz", nil},
	}
	for _, tt := range tests {
		got := sol.Why(tt.name)
		if !slices.EqualFunc(got, tt.want, slices.Equal) {
			t.Errorf("Why(%q) = %q; want %q", tt.name, got, tt.want)
		}
	}
}

func TestWhyFromLock(t *testing.T) {
	// A Solution rebuilt from a lock file, not from Resolve.
	b, _ := NewDependency("b", "^1")
	sol := &Solution{
		Wants: wants(t, "a"),
		Skills: []Skill{
			{Name: "a", Dependencies: []Dependency{b}},
			{Name: "b"},
		},
	}
	if got, want := sol.Why("b"), [][]string{{"a", "b"}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Why(b) = %q; want %q", got, want)
	}
}
