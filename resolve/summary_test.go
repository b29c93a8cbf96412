package resolve

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
)

// fullText is e's whole derivation, as --verbose prints it.
func fullText(e *NoSolutionError) string {
	v := *e
	v.Verbose = true
	return v.Error()
}

// TestNoSolutionSummary checks that a pathological conflict (the
// benchmark's pigeonhole: 8 pigeons, 7 holes) is explained within the
// summary's bounds, names the skills and constraints it comes from, and
// still has the whole derivation behind Verbose.
func TestNoSolutionSummary(t *testing.T) {
	src, wants := pigeonhole(pigeons)
	_, err := Resolve(context.Background(), wants, src, Options{})
	var nse *NoSolutionError
	if !errors.As(err, &nse) {
		t.Fatalf("Resolve error = %v; want a *NoSolutionError", err)
	}
	short, full := err.Error(), fullText(nse)
	if n := strings.Count(short, "\n") + 1; n > shortMaxLines {
		t.Errorf("summary is %d lines; want at most %d:\n%s", n, shortMaxLines, short)
	}
	if len(short) > shortMaxLines*(shortMaxLine+1) {
		t.Errorf("summary is %d bytes; want at most %d", len(short), shortMaxLines*(shortMaxLine+1))
	}
	if len(full) < 10*len(short) {
		t.Errorf("full derivation is %d bytes, summary %d; want the benchmark's derivation to be long", len(full), len(short))
	}
	if !strings.HasSuffix(full, "version solving failed.") {
		t.Errorf("full derivation ends %q; want the conclusion", full[max(0, len(full)-80):])
	}
	for _, want := range []string{
		"version solving failed",
		"The conflict involves 15 skills: hole1, hole2,",
		"the project depends on pigeon",
		"--verbose",
	} {
		if !strings.Contains(short, want) {
			t.Errorf("summary lacks %q:\n%s", want, short)
		}
	}
	// A constraint between a pigeon and a hole, as declared.
	if !regexp.MustCompile(`pigeon\d+ \d+\.0\.0 depends on hole\d+ =?\d+\.0\.0`).MatchString(short) {
		t.Errorf("summary names no declared pigeon -> hole constraint:\n%s", short)
	}
}

// TestNoSolutionShortIsWhole checks that a derivation within the bounds
// is shown whole, Verbose or not.
func TestNoSolutionShortIsWhole(t *testing.T) {
	src := newMemSource(catalog{
		"a": {"1.0.0": {"b": "^2.0.0"}},
		"c": {"1.0.0": {"b": "^1.0.0"}},
		"b": {"1.0.0": nil, "2.0.0": nil},
	})
	_, err := Resolve(context.Background(), wants(t, "a ^1.0.0", "c ^1.0.0"), src, Options{})
	var nse *NoSolutionError
	if !errors.As(err, &nse) {
		t.Fatalf("Resolve error = %v; want a *NoSolutionError", err)
	}
	if got, full := err.Error(), fullText(nse); got != full || strings.Contains(got, "--verbose") {
		t.Errorf("short:\n%s\nfull:\n%s\nwant the same, without a --verbose hint", got, full)
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("é", shortMaxLine)
	got := cut(long)
	if len(got) > shortMaxLine || !strings.HasSuffix(got, "...") || !strings.HasPrefix(got, "éé") {
		t.Errorf("cut = %q (%d bytes); want at most %d bytes ending in ...", got, len(got), shortMaxLine)
	}
	if got := cut("short"); got != "short" {
		t.Errorf("cut(short) = %q", got)
	}
}
