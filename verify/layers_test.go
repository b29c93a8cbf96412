package verify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
)

// readLayer writes a policy file called name into dir and reads it.
func readLayer(t *testing.T, dir, name, text string) *Policy {
	t.Helper()
	p := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pol, err := ReadPolicy(p)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// TestLayersProjectCannotRelax has a project policy try to relax each kind
// of rule a floor (the user's, or the system's) sets. The floor's rule is
// enforced every time; the project's own rule is enforced as well.
func TestLayersProjectCannotRelax(t *testing.T) {
	dir := t.TempDir()
	good, _ := testKey(t, dir, "good")
	evil, _ := testKey(t, dir, "evil")
	vetter, _ := testKey(t, dir, "vetter")
	vsA, err := ca.NewVirtualSigstore() // the floor's trusted root
	if err != nil {
		t.Fatal(err)
	}
	vsB, err := ca.NewVirtualSigstore() // the project's own "trusted root"
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("manifest")
	const evilID = "https://github.com/evil/x/.github/workflows/r.yml@refs/heads/main"
	prov := &Provenance{SourceRepository: "https://github.com/acme/skills", Builder: "test"}
	evilProv := &Provenance{SourceRepository: "https://github.com/evil/skills", Builder: "test"}
	vetting := &Vetting{Upstream: "u", Mirror: "m", VettedAt: time.Unix(1700000000, 0).UTC()}
	env := func(b ...[]byte) []Envelope {
		var out []Envelope
		for i, x := range b {
			out = append(out, Envelope{Referrer: digest.FromString(fmt.Sprint(i)), Bundle: x})
		}
		return out
	}
	signedGood := keySign(t, good, d, PredicateSign, nil)
	signedEvil := keySign(t, evil, d, PredicateSign, nil)
	keyless := func(vs *ca.VirtualSigstore, id string) []byte { return keylessSign(t, vs, id, issuer, d, time.Minute) }

	type layer struct {
		name, text string
		material   root.TrustedMaterial
	}
	floorKey := layer{"user", "version: 1\nrules:\n  - prefix: example.com/skills\n    keys: [good.pub]\n", nil}
	for _, tc := range []struct {
		name   string
		layers []layer
		// attack satisfies the relaxing layer but not the floor;
		// honest satisfies every layer.
		attack, honest []Envelope
		wantErr        string // in the denial of attack
		wantLayer      string // the layer that denies
	}{
		{
			name:    "require: none",
			layers:  []layer{floorKey, {"project", "version: 1\nrules:\n  - prefix: \"*\"\n    require: none\n", nil}},
			attack:  nil,
			honest:  env(signedGood),
			wantErr: "not signed", wantLayer: "user",
		},
		{
			name:    "its own keys",
			layers:  []layer{floorKey, {"project", "version: 1\nrules:\n  - prefix: example.com/skills\n    keys: [evil.pub]\n", nil}},
			attack:  env(signedEvil),
			honest:  env(signedGood, signedEvil),
			wantErr: "no trusted key verifies it", wantLayer: "user",
		},
		{
			name: "its own identities",
			layers: []layer{
				{"user", fmt.Sprintf("version: 1\nrules:\n  - prefix: example.com\n    identities: [{issuer: %q, subject: %q}]\n", issuer, identity), vsA},
				{"project", fmt.Sprintf("version: 1\nrules:\n  - prefix: example.com\n    identities: [{issuer: %q, subjectRegexp: '.*'}]\n", issuer), vsA},
			},
			attack:  env(keyless(vsA, evilID)),
			honest:  env(keyless(vsA, identity)),
			wantErr: "expected SAN value", wantLayer: "user",
		},
		{
			name: "its own trusted root",
			layers: []layer{
				{"user", fmt.Sprintf("version: 1\nrules:\n  - prefix: example.com\n    identities: [{issuer: %q, subject: %q}]\n", issuer, identity), vsA},
				{"project", fmt.Sprintf("version: 1\nrules:\n  - prefix: example.com\n    identities: [{issuer: %q, subject: %q}]\n", issuer, identity), vsB},
			},
			attack:  env(keyless(vsB, identity)),
			honest:  env(keyless(vsA, identity), keyless(vsB, identity)),
			wantErr: "no signature from a signer", wantLayer: "user",
		},
		{
			name: "no provenance, or another source",
			layers: []layer{
				{"user", "version: 1\nrules:\n  - prefix: example.com\n    keys: [good.pub]\n    provenance: {sourceRepository: '^https://github\\.com/acme/'}\n", nil},
				{"project", "version: 1\nrules:\n  - prefix: example.com\n    keys: [good.pub]\n    provenance: {sourceRepository: '.*'}\n", nil},
			},
			attack:  env(signedGood, keySign(t, good, d, PredicateSLSAProvenance, evilProv.Predicate())),
			honest:  env(signedGood, keySign(t, good, d, PredicateSLSAProvenance, prov.Predicate())),
			wantErr: "no trusted provenance", wantLayer: "user",
		},
		{
			name: "no vetting",
			layers: []layer{
				{"user", "version: 1\nrules:\n  - prefix: example.com\n    keys: [good.pub]\n    vetted: {keys: [vetter.pub]}\n", nil},
				{"project", "version: 1\nrules:\n  - prefix: example.com\n    keys: [good.pub]\n", nil},
			},
			attack:  env(signedGood),
			honest:  env(signedGood, keySign(t, vetter, d, PredicateVetted, vetting)),
			wantErr: "not vetted", wantLayer: "user",
		},
		{
			name:    "a longer prefix",
			layers:  []layer{floorKey, {"project", "version: 1\nrules:\n  - prefix: example.com/skills/pdf\n    require: none\n", nil}},
			attack:  nil,
			honest:  env(signedGood),
			wantErr: "not signed", wantLayer: "user",
		},
		{
			name: "the user relaxing the system floor",
			layers: []layer{
				{"system", "version: 1\nrules:\n  - prefix: \"*\"\n    keys: [good.pub]\n", nil},
				{"user", "version: 1\nrules:\n  - prefix: \"*\"\n    require: none\n", nil},
				{"project", "version: 1\nrules:\n  - prefix: example.com\n    keys: [evil.pub]\n", nil},
			},
			attack:  env(signedEvil),
			honest:  env(signedGood, signedEvil),
			wantErr: "no trusted key verifies it", wantLayer: "system",
		},
		{
			name: "a project adds a requirement the floor lacks",
			layers: []layer{
				{"user", "version: 1\nrules:\n  - prefix: other.example\n    keys: [good.pub]\n", nil},
				{"project", "version: 1\nrules:\n  - prefix: example.com\n    keys: [good.pub]\n", nil},
			},
			attack:  env(signedEvil),
			honest:  env(signedGood),
			wantErr: "no trusted key verifies it", wantLayer: "project",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var layers []Layer
			for i, l := range tc.layers {
				layers = append(layers, Layer{Name: l.name, Policy: readLayer(t, dir, fmt.Sprintf("%s-%d", l.name, i), l.text), Sigstore: withRoot(l.material)})
			}
			v, err := NewLayeredVerifier(layers, Options{Sigstore: local})
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.Verify(context.Background(), repo, d, tc.attack)
			var pe *PolicyError
			if !errors.As(err, &pe) {
				t.Fatalf("attack: err = %v; want a PolicyError", err)
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(pe.Policy, tc.wantLayer+" policy ") {
				t.Errorf("attack: err = %v (by %q); want %q by the %s policy", err, pe.Policy, tc.wantErr, tc.wantLayer)
			}
			if !v.Required(repo) {
				t.Errorf("Required(%s) = false; want true", repo)
			}
			res, err := v.Verify(context.Background(), repo, d, tc.honest)
			if err != nil {
				t.Fatalf("honest: %v; want accepted", err)
			}
			if res.Policy == nil || len(res.Policy.Rules) != len(layers) && tc.wantLayer != "project" {
				t.Errorf("honest: effective rule = %+v; want a rule from every layer", res.Policy)
			}
		})
	}
}

// TestEffective is the merge itself: which rule of each layer applies to
// a repository, and what they demand together.
func TestEffective(t *testing.T) {
	dir := t.TempDir()
	testKey(t, dir, "good")
	testKey(t, dir, "vetter")
	sys := readLayer(t, dir, "system", "version: 1\nrules:\n  - prefix: \"*\"\n    require: none\n  - prefix: ghcr.io/acme\n    keys: [good.pub]\n")
	user := readLayer(t, dir, "user", "version: 1\ntrustedRoot: root.json\nrules:\n  - prefix: ghcr.io/acme/skills\n    keys: [good.pub]\n    provenance: {sourceRepository: '^https://github\\.com/acme/'}\n")
	proj := readLayer(t, dir, "project", "version: 1\nrules:\n  - prefix: ghcr.io/acme/skills/pdf\n    require: none\n    vetted: {keys: [vetter.pub]}\n")
	layers := []Layer{{Name: "system", Policy: sys}, {Name: "user", Policy: user}, {Name: "project", Policy: proj}}
	for _, tc := range []struct {
		repo       string
		require    string
		prefixes   string // layer:prefix, floors first
		provenance int
		vetted     bool
	}{
		{"ghcr.io/acme/skills/pdf", RequireSigned, "system:ghcr.io/acme user:ghcr.io/acme/skills project:ghcr.io/acme/skills/pdf", 1, true},
		{"ghcr.io/acme/skills/csv", RequireSigned, "system:ghcr.io/acme user:ghcr.io/acme/skills", 1, false},
		{"ghcr.io/acme/tools/x", RequireSigned, "system:ghcr.io/acme", 0, false},
		{"docker.io/other/x", RequireNone, "system:*", 0, false},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			e := Effective(layers, tc.repo)
			if e == nil {
				t.Fatal("Effective = nil")
			}
			var got []string
			for _, r := range e.Rules {
				got = append(got, r.Layer+":"+r.Prefix)
			}
			if strings.Join(got, " ") != tc.prefixes {
				t.Errorf("rules = %v; want %s", got, tc.prefixes)
			}
			if e.Require != tc.require || len(e.Provenance) != tc.provenance || e.Vetted != tc.vetted {
				t.Errorf("effective = require %s, provenance %v, vetted %v; want %s, %d, %v", e.Require, e.Provenance, e.Vetted, tc.require, tc.provenance, tc.vetted)
			}
			for _, r := range e.Rules {
				for _, k := range r.Keys {
					if !filepath.IsAbs(k) {
						t.Errorf("%s key %s is not absolute", r.Layer, k)
					}
				}
			}
		})
	}
	if e := Effective(layers[1:], "docker.io/other/x"); e != nil {
		t.Errorf("no rule anywhere: Effective = %+v; want nil", e)
	}
}
