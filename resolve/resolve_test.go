package resolve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name    string
		catalog catalog
		wants   []string
		opts    Options
		want    string
	}{
		{
			name: "linear",
			catalog: catalog{
				"a": {"1.0.0": {"b": "^1.0.0"}},
				"b": {"1.0.0": {"c": "^1.0.0"}, "1.1.0": {"c": "^1.0.0"}, "2.0.0": nil},
				"c": {"1.0.0": nil},
			},
			wants: []string{"a ^1.0.0"},
			want:  "a 1.0.0, b 1.1.0, c 1.0.0",
		},
		{
			name: "diamond",
			catalog: catalog{
				"a": {"1.0.0": {"c": "^1.1.0"}},
				"b": {"1.0.0": {"c": "<1.3.0"}},
				"c": {"1.0.0": nil, "1.1.0": nil, "1.2.0": nil, "1.3.0": nil},
			},
			wants: []string{"a ^1.0.0", "b ^1.0.0"},
			want:  "a 1.0.0, b 1.0.0, c 1.2.0",
		},
		{
			name:    "highest version preferred",
			catalog: catalog{"a": {"1.0.0": nil, "1.5.0": nil, "1.4.9": nil, "2.0.0": nil}},
			wants:   []string{"a ^1.0.0"},
			want:    "a 1.5.0",
		},
		{
			name:    "no constraint means any release",
			catalog: catalog{"a": {"1.0.0": nil, "3.1.0": nil, "4.0.0-rc.1": nil}},
			wants:   []string{"a"},
			want:    "a 3.1.0",
		},
		{
			name: "cycle",
			catalog: catalog{
				"a": {"1.0.0": {"b": "^1.0.0"}, "2.0.0": {"b": "^2.0.0"}},
				"b": {"1.0.0": {"a": "^1.0.0"}, "2.0.0": {"a": "^1.0.0"}},
			},
			wants: []string{"a"},
			want:  "a 1.0.0, b 1.0.0",
		},
		{
			name:    "self dependency",
			catalog: catalog{"a": {"1.0.0": {"a": "^1.0.0"}, "2.0.0": {"a": "^1.0.0"}}},
			wants:   []string{"a"},
			want:    "a 1.0.0",
		},
		{
			name:    "backtracks over a transitive conflict",
			catalog: catalog{"a": {"1.0.0": {"b": "^1"}, "2.0.0": {"b": "^2"}}, "b": {"1.0.0": nil}},
			wants:   []string{"a"},
			want:    "a 1.0.0, b 1.0.0",
		},
		{
			name:    "pre-releases skipped by default",
			catalog: catalog{"a": {"1.0.0": nil, "1.1.0-beta.1": nil}},
			wants:   []string{"a ^1.0.0"},
			want:    "a 1.0.0",
		},
		{
			name:    "pre-releases allowed by option",
			catalog: catalog{"a": {"1.0.0": nil, "1.1.0-beta.1": nil}},
			wants:   []string{"a ^1.0.0"},
			opts:    Options{Prereleases: true},
			want:    "a 1.1.0-beta.1",
		},
		{
			name:    "pre-releases allowed when the constraint names one",
			catalog: catalog{"a": {"1.0.0": nil, "2.0.0-beta.2": nil, "2.0.0-alpha": nil}},
			wants:   []string{"a >=2.0.0-alpha"},
			want:    "a 2.0.0-beta.2",
		},
		{
			name: "pre-release of a dependency only when named",
			catalog: catalog{
				"a": {"1.0.0": {"b": "^1.0.0"}},
				"b": {"1.0.0": nil, "1.1.0-rc.1": nil},
			},
			wants: []string{"a"},
			want:  "a 1.0.0, b 1.0.0",
		},
		{
			name:    "locked version kept",
			catalog: catalog{"a": {"1.0.0": nil, "1.1.0": nil, "1.2.0": nil}},
			wants:   []string{"a ^1.0.0"},
			opts:    Options{Locked: locks("a 1.1.0")},
			want:    "a 1.1.0",
		},
		{
			name:    "locked version dropped when it no longer satisfies",
			catalog: catalog{"a": {"1.0.0": nil, "1.1.0": nil, "1.2.0": nil}},
			wants:   []string{"a ^1.2.0"},
			opts:    Options{Locked: locks("a 1.1.0")},
			want:    "a 1.2.0",
		},
		{
			name:    "locked version no longer published",
			catalog: catalog{"a": {"1.0.0": nil, "1.2.0": nil}},
			wants:   []string{"a ^1.0.0"},
			opts:    Options{Locked: locks("a 1.1.0")},
			want:    "a 1.2.0",
		},
		{
			name: "adding a want keeps the locked others",
			catalog: catalog{
				"a": {"1.0.0": {"c": "^1.0.0"}, "1.1.0": {"c": "^1.0.0"}},
				"b": {"1.0.0": {"c": ">=1.0.0"}},
				"c": {"1.0.0": nil, "1.5.0": nil, "2.0.0": nil},
			},
			wants: []string{"a ^1.0.0", "b"},
			opts:  Options{Locked: locks("a 1.0.0", "c 1.0.0")},
			want:  "a 1.0.0, b 1.0.0, c 1.0.0",
		},
		{
			name: "adding a want prefers an older version of it to upgrading a locked skill",
			catalog: catalog{
				"a": {"1.0.0": nil, "1.1.0": nil, "1.2.0": nil, "1.3.0": nil},
				"b": {"1.0.0": {"a": "^1.0.0"}, "2.0.0": {"a": "^1.1.0"}},
			},
			wants: []string{"a ^1.0.0", "b"},
			opts:  Options{Locked: locks("a 1.0.0")},
			want:  "a 1.0.0, b 1.0.0",
		},
		{
			name:    "upgrade ignores the lock of the named skills",
			catalog: catalog{"a": {"1.0.0": nil, "1.1.0": nil}, "b": {"1.0.0": nil, "1.1.0": nil}},
			wants:   []string{"a", "b"},
			opts:    Options{Locked: locks("a 1.0.0", "b 1.0.0"), Upgrade: []string{"a"}},
			want:    "a 1.1.0, b 1.0.0",
		},
		{
			name:    "upgrade all ignores the whole lock",
			catalog: catalog{"a": {"1.0.0": nil, "1.1.0": nil}, "b": {"1.0.0": nil, "1.1.0": nil}},
			wants:   []string{"a", "b"},
			opts:    Options{Locked: locks("a 1.0.0", "b 1.0.0"), UpgradeAll: true},
			want:    "a 1.1.0, b 1.1.0",
		},
		{
			name:    "no wants",
			catalog: catalog{},
			want:    "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sol, err := Resolve(context.Background(), wants(t, tt.wants...), newMemSource(tt.catalog), tt.opts)
			if err != nil {
				t.Fatalf("Resolve: %v", err)
			}
			if got := summary(sol); got != tt.want {
				t.Errorf("Resolve = %q; want %q", got, tt.want)
			}
		})
	}
}

// Skills with more than 63 versions need sets of several words.
func TestResolveManyVersions(t *testing.T) {
	c := catalog{"a": {}, "b": {}, "c": {"1.0.0": {"a": ">=1.65.0"}}}
	for i := range 150 {
		c["a"][fmt.Sprintf("1.%d.0", i)] = nil
		// Every b above 1.29.0 needs an a that the project rules out, so
		// the solver has to walk down past 120 versions of b.
		c["b"][fmt.Sprintf("1.%d.0", i)] = map[string]string{"a": fmt.Sprintf(">=1.%d.0", i+40)}
	}
	tests := []struct {
		wants []string
		want  string
	}{
		{[]string{"a <1.70.0", "c"}, "a 1.69.0, c 1.0.0"},
		{[]string{"a <1.70.0", "b"}, "a 1.69.0, b 1.29.0"},
		{[]string{"b", "c", "a ^1.0.0"}, "a 1.149.0, b 1.109.0, c 1.0.0"},
	}
	for _, tt := range tests {
		sol, err := Resolve(context.Background(), wants(t, tt.wants...), newMemSource(c), Options{})
		if err != nil {
			t.Fatalf("Resolve(%q): %v", tt.wants, err)
		}
		if got := summary(sol); got != tt.want {
			t.Errorf("Resolve(%q) = %q; want %q", tt.wants, got, tt.want)
		}
	}
	_, err := Resolve(context.Background(), wants(t, "a <1.30.0", "c"), newMemSource(c), Options{})
	want := "Because every version of c depends on a >=1.65.0 and the project depends on a <1.30.0, c is forbidden.\n" +
		"So, because the project depends on c any, version solving failed."
	if err == nil || err.Error() != want {
		t.Errorf("Resolve error = %v; want %q", err, want)
	}
}

func TestResolveSolutionDetails(t *testing.T) {
	src := newMemSource(catalog{
		"a": {"1.0.0": {"c": "^1.0.0", "b": "~1.0"}},
		"b": {"1.0.0": nil},
		"c": {"1.0.0": nil},
	})
	ws := wants(t, "a ^1")
	sol, err := Resolve(context.Background(), ws, src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sol.Wants, ws) {
		t.Errorf("Wants = %v; want %v", sol.Wants, ws)
	}
	a, ok := sol.Lookup("a")
	if !ok {
		t.Fatal("Lookup(a) found nothing")
	}
	var deps []string
	for _, d := range a.Dependencies {
		deps = append(deps, d.String())
	}
	if got, want := strings.Join(deps, ", "), "b ~1.0, c ^1.0.0"; got != want {
		t.Errorf("a's Dependencies = %q; want %q", got, want)
	}
	if _, ok := sol.Lookup("zzz"); ok {
		t.Errorf("Lookup(zzz) found a skill; want none")
	}
}

func TestResolveUnknownWant(t *testing.T) {
	src := newMemSource(catalog{"a": {"1.0.0": nil}})
	_, err := Resolve(context.Background(), wants(t, "a", "ghost ^1.0.0"), src, Options{})
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Resolve error = %v; want one wrapping ErrNotFound", err)
	}
	if !strings.Contains(err.Error(), "ghost") {
		t.Errorf("Resolve error = %q; want it to name ghost", err)
	}
}

// failingSource fails every call with err.
type failingSource struct{ err error }

func (f failingSource) Versions(context.Context, string) ([]*semver.Version, error) {
	return nil, f.err
}

func (f failingSource) Dependencies(context.Context, string, *semver.Version) ([]Dependency, error) {
	return nil, f.err
}

func TestResolveSourceError(t *testing.T) {
	boom := errors.New("registry unreachable")
	_, err := Resolve(context.Background(), wants(t, "a"), failingSource{boom}, Options{})
	if !errors.Is(err, boom) {
		t.Errorf("Resolve error = %v; want it to wrap %v", err, boom)
	}
}

func TestResolveCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := newMemSource(catalog{"a": {"1.0.0": nil}})
	_, err := Resolve(ctx, wants(t, "a"), src, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Resolve error = %v; want context.Canceled", err)
	}
}

func TestResolveAsksSourceOnce(t *testing.T) {
	// A conflict-heavy graph: every foo version is tried and rejected
	// before the old one works, and b and y are reached from several paths.
	src := newMemSource(catalog{
		"foo": {
			"1.0.0": nil,
			"1.1.0": {"a": "^1.0.0", "b": "^1.0.0"},
			"1.2.0": {"x": "^1.0.0", "y": "^1.0.0"},
		},
		"a": {"1.0.0": {"b": "^2.0.0"}},
		"b": {"1.0.0": nil, "2.0.0": nil},
		"x": {"1.0.0": {"y": "^2.0.0"}},
		"y": {"1.0.0": nil, "2.0.0": nil},
	})
	sol, err := Resolve(context.Background(), wants(t, "foo ^1.0.0"), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(sol), "foo 1.0.0"; got != want {
		t.Errorf("Resolve = %q; want %q", got, want)
	}
	for name, n := range src.versionCalls {
		if n != 1 {
			t.Errorf("Versions(%s) called %d times; want 1", name, n)
		}
	}
	for key, n := range src.depCalls {
		if n != 1 {
			t.Errorf("Dependencies(%s) called %d times; want 1", key, n)
		}
	}
}

func TestNewDependency(t *testing.T) {
	tests := []struct {
		name, constraint string
		want             string
		wantErr          bool
	}{
		{"pdf", "^1.2", "pdf ^1.2", false},
		{"pdf", "", "pdf any", false},
		{"pdf", ">=1.0.0 <2", "pdf >=1.0.0 <2", false},
		{"pdf", "not a version", "", true},
	}
	for _, tt := range tests {
		d, err := NewDependency(tt.name, tt.constraint)
		if (err != nil) != tt.wantErr {
			t.Errorf("NewDependency(%q, %q) error = %v; want error %v", tt.name, tt.constraint, err, tt.wantErr)
			continue
		}
		if err == nil && d.String() != tt.want {
			t.Errorf("NewDependency(%q, %q) = %q; want %q", tt.name, tt.constraint, d, tt.want)
		}
	}
}
