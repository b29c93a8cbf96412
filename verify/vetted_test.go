package verify

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/internal/sigstorego"
)

// TestVerifyVetted covers rules that demand a vetted attestation: only a
// vetter's vetted statement about this manifest counts, and a vetter's
// key vouches for nothing else.
func TestVerifyVetted(t *testing.T) {
	dir := t.TempDir()
	author, _ := testKey(t, dir, "author")
	mirror, _ := testKey(t, dir, "mirror")
	other, _ := testKey(t, dir, "other")
	pol := writePolicy(t, dir, `version: 1
rules:
  - prefix: mirror.example/acme          # author signature and vetting
    keys: [author.pub]
    vetted:
      keys: [mirror.pub]
  - prefix: mirror.example/vetted-only   # the mirror's word alone
    vetted:
      keys: [mirror.pub]
  - prefix: mirror.example/plain         # no vetting asked for
    keys: [author.pub]
`)
	v, err := NewVerifier(pol, Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("manifest")
	vetting := &Vetting{Upstream: "ghcr.io/acme/pdf", Mirror: "mirror.example/acme/pdf", Checks: []string{"signature", "lint:error"}, VettedAt: time.Unix(1700000000, 0).UTC()}
	signed := keySign(t, author, d, PredicateSign, nil)
	vetted := keySign(t, mirror, d, PredicateVetted, vetting)
	env := func(b ...[]byte) []Envelope {
		var out []Envelope
		for i, x := range b {
			out = append(out, Envelope{Referrer: digest.FromString(fmt.Sprint(i)), Bundle: x})
		}
		return out
	}
	for _, tc := range []struct {
		name, repo string
		envs       []Envelope
		wantErr    string // "" means accepted with the vetting recorded
	}{
		{"signed and vetted", "mirror.example/acme/pdf", env(signed, vetted), ""},
		{"signed, not vetted", "mirror.example/acme/pdf", env(signed), "not vetted"},
		{"vetted, not signed", "mirror.example/acme/pdf", env(vetted), "no signature from a signer"},
		{"vetted by the author's key", "mirror.example/acme/pdf", env(signed, keySign(t, author, d, PredicateVetted, vetting)), "not vetted"},
		{"vetted by an unknown key", "mirror.example/acme/pdf", env(signed, keySign(t, other, d, PredicateVetted, vetting)), "not vetted"},
		{"vetted, about another manifest", "mirror.example/acme/pdf", env(signed, keySign(t, mirror, digest.FromString("other"), PredicateVetted, vetting)), "not vetted"},
		{"the mirror's key signs, not vets", "mirror.example/acme/pdf", env(signed, keySign(t, mirror, d, PredicateSign, nil)), "not vetted"},
		{"the mirror's key is no author", "mirror.example/acme/pdf", env(keySign(t, mirror, d, PredicateSign, nil), vetted), "no signature from a signer"},
		{"vetted predicate without a mirror", "mirror.example/acme/pdf", env(signed, keySign(t, mirror, d, PredicateVetted, map[string]string{"upstream": "x"})), "not vetted"},
		{"vetted-only rule, vetted", "mirror.example/vetted-only/pdf", env(vetted), ""},
		{"vetted-only rule, nothing attached", "mirror.example/vetted-only/pdf", nil, "not vetted"},
		{"vetted-only rule, only signed", "mirror.example/vetted-only/pdf", env(signed), "not vetted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := v.Verify(context.Background(), tc.repo, d, tc.envs)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Verify: %v; want a policy error containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v; want accepted", err)
			}
			if res.Vetting == nil || res.Vetting.Mirror != vetting.Mirror || !strings.HasPrefix(res.VettedBy, "key:sha256:") {
				t.Errorf("vetting = %+v by %q; want the mirror's, by its key", res.Vetting, res.VettedBy)
			}
		})
	}

	// Where no vetting is asked for, a vetted attestation neither helps
	// nor counts as the signature.
	res, err := v.Verify(context.Background(), "mirror.example/plain/pdf", d, env(vetted))
	if !errors.Is(err, ErrPolicy) {
		t.Errorf("plain rule with only a vetted attestation: %v; want a policy error", err)
	}
	if res.Vetting != nil {
		t.Errorf("plain rule recorded a vetting: %+v", res.Vetting)
	}
	if _, err := v.Verify(context.Background(), "mirror.example/plain/pdf", d, env(signed, keySign(t, author, d, PredicateVetted, vetting))); err != nil {
		t.Errorf("plain rule, signed, with the author's vetted statement: %v; want accepted", err)
	}
}

func TestPolicyVettedErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, body, want string }{
		{"no vetters", "version: 1\nrules:\n  - prefix: a.example\n    vetted: {}\n", `:3: prefix "a.example": vetted needs the keys or identities`},
		{"missing key", "version: 1\nrules:\n  - prefix: a.example\n    vetted:\n      keys: [nope.pub]\n", ":3: vetted key nope.pub"},
		{"bad identity", "version: 1\nrules:\n  - prefix: a.example\n    vetted:\n      identities: [{issuer: x}]\n", ":3: vetted identity 1 needs"},
		{"signed with no signers", "version: 1\nrules:\n  - prefix: a.example\n    require: signed\n    vetted:\n      identities: [{issuer: x, subject: y}]\n", "requires signatures but trusts no keys"},
		{"empty vetted", "version: 1\nrules:\n  - prefix: a.example\n    keys: []\n    vetted:\n", ":5: vetted: has no value"},
		{"vetted keys mis-indented", "version: 1\nrules:\n  - prefix: a.example\n    vetted:\n    keys: [a.pub]\n", ":4: vetted: has no value"},
		{"empty provenance", "version: 1\nrules:\n  - prefix: a.example\n    provenance: ~\n", ":4: provenance: has no value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePolicy(dir+"/trust.yaml", []byte(tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParsePolicy: %v; want %q", err, tc.want)
			}
		})
	}
}

// multiSubjectSign signs one statement about every digest of ds.
func multiSubjectSign(t *testing.T, kp *Keypair, ds []digest.Digest, pt string, pred any) []byte {
	t.Helper()
	raw, err := json.Marshal(pred)
	if err != nil {
		t.Fatal(err)
	}
	st := Statement{Type: StatementType, PredicateType: pt, Predicate: raw}
	for _, d := range ds {
		st.Subject = append(st.Subject, Subject{Name: "x", Digest: map[string]string{"sha256": d.Encoded()}})
	}
	data, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(kp.key)
	if err != nil {
		t.Fatal(err)
	}
	out, err := local.Sign(context.Background(), &sigproto.SignRequest{Statement: data, PayloadType: PayloadType, PrivateKey: der})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bundle
}

// A statement about several manifests vouches for none of them: a skill's
// is about its manifest alone.
func TestVerifyOneSubjectOnly(t *testing.T) {
	dir := t.TempDir()
	mirror, _ := testKey(t, dir, "mirror")
	author, _ := testKey(t, dir, "author")
	v, err := NewVerifier(writePolicy(t, dir, "version: 1\nrules:\n  - prefix: \"*\"\n    keys: [author.pub]\n    vetted:\n      keys: [mirror.pub]\n"), Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	d, other := digest.FromString("manifest"), digest.FromString("other")
	vt := &Vetting{Upstream: "u", Mirror: "m", VettedAt: time.Unix(1700000000, 0).UTC()}
	envs := []Envelope{
		{Referrer: digest.FromString("1"), Bundle: multiSubjectSign(t, author, []digest.Digest{other, d}, PredicateSign, nil)},
		{Referrer: digest.FromString("2"), Bundle: multiSubjectSign(t, mirror, []digest.Digest{other, d}, PredicateVetted, vt)},
	}
	res, err := v.Verify(context.Background(), "r.example/x", d, envs)
	if err == nil || res.Signer != "" || res.Vetting != nil {
		t.Errorf("statements about [other, d] verified for d: signer %q, vetting %v, err %v", res.Signer, res.Vetting, err)
	}
	if err != nil && !strings.Contains(err.Error(), "2 subjects") {
		t.Errorf("err = %v; want it to say the statements have 2 subjects", err)
	}
}

// Under a rule that trusts vetters only, a refused vetted bundle says why
// it failed as a vetted attestation.
func TestVerifyVettedOnlyReason(t *testing.T) {
	dir := t.TempDir()
	mirror, _ := testKey(t, dir, "mirror")
	v, err := NewVerifier(writePolicy(t, dir, "version: 1\nrules:\n  - prefix: \"*\"\n    vetted:\n      keys: [mirror.pub]\n"), Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("m")
	b := keySign(t, mirror, d, PredicateVetted, map[string]string{"upstream": "u"}) // no mirror, no time
	_, err = v.Verify(context.Background(), "r.example/x", d, []Envelope{{Referrer: digest.FromString("1"), Bundle: b}})
	if err == nil || !strings.Contains(err.Error(), "names no mirror or time") {
		t.Errorf("err = %v; want the vetted predicate's fault named", err)
	}
}

// A Policy built in code, never validated, fails closed instead of
// panicking on a vetted rule.
func TestVerifyUnvalidatedVettedRule(t *testing.T) {
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	pol := &Policy{Version: 1, Rules: []Rule{{Prefix: "*", Require: RequireNone, Vetted: &VettedRule{Identities: []Identity{{Issuer: issuer, Subject: identity}}}}}}
	v, err := NewVerifier(pol, Options{Sigstore: &sigstorego.Local{TrustedMaterial: vs}})
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("m")
	if _, err := v.Verify(context.Background(), "r.example/x", d, []Envelope{{Referrer: d, Bundle: keylessSign(t, vs, identity, issuer, d, time.Minute)}}); !errors.Is(err, ErrPolicy) {
		t.Errorf("Verify with an unvalidated vetted rule: %v; want a policy error", err)
	}
}
