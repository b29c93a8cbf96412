package resolve

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// TestMatcherAgreesWithCheck compares the fast matcher with Masterminds'
// Check on every comparator shape it accepts, over every release version
// with components up to 3, plus random AND and OR combinations.
func TestMatcherAgreesWithCheck(t *testing.T) {
	var versions []*semver.Version
	for x := range 4 {
		for y := range 4 {
			for z := range 4 {
				versions = append(versions, semver.New(uint64(x), uint64(y), uint64(z), "", ""))
			}
		}
	}
	versions = append(versions, semver.MustParse("1.2.3+build.7"), semver.MustParse("10.20.30"))

	var comparators []string
	for _, op := range []string{"", "=", ">", "<", ">=", "<=", "~", "^"} {
		for _, v := range versions[:64] {
			comparators = append(comparators, op+v.String())
		}
	}
	check := func(text string) {
		t.Helper()
		c, err := semver.NewConstraint(text)
		if err != nil {
			t.Fatal(err)
		}
		m := compile(c)
		if m == nil {
			t.Fatalf("compile(%q) = nil; want a matcher", text)
		}
		for _, v := range versions {
			if got, want := m.allows(v), c.Check(v); got != want {
				t.Errorf("%q allows %s = %v; Check says %v", text, v, got, want)
			}
		}
	}
	for _, text := range comparators {
		check(text)
	}
	check("1.2.3 - 2.0.0") // rewritten to ">=1.2.3 <=2.0.0" by the parser
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return comparators[rng.IntN(len(comparators))] }
	for range 2000 {
		check(fmt.Sprintf("%s %s || %s, %s", pick(), pick(), pick(), pick()))
	}
}

func TestCompileFallsBack(t *testing.T) {
	for _, text := range []string{"^1.2", "1.x", "*", "!=1.0.0", ">=1.0.0-beta", "v1.2.3", "~>1.2.3"} {
		c, err := semver.NewConstraint(text)
		if err != nil {
			t.Fatal(err)
		}
		if m := compile(c); m != nil {
			t.Errorf("compile(%q) = %v; want nil (left to Check)", text, m)
		}
	}
}
