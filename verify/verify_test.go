package verify

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/skillpm/skillpm/internal/sigstorego"
)

const (
	repo     = "example.com/skills/pdf"
	issuer   = "https://token.actions.githubusercontent.com"
	identity = "https://github.com/acme/skills/.github/workflows/release.yml@refs/heads/main"
)

// TestVerify runs the trust cases of issue 5 through one verifier:
// every case that must fail fails with ErrPolicy (zero false accepts).
func TestVerify(t *testing.T) {
	dir := t.TempDir()
	good, goodPub := testKey(t, dir, "good")
	other, _ := testKey(t, dir, "other")
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	pol := writePolicy(t, dir, fmt.Sprintf(`version: 1
rules:
  - prefix: example.com/skills
    keys: [%s]
    identities:
      - issuer: %s
        subject: %s
  - prefix: example.com/skills/vetted
    keys: [good.pub]
    provenance:
      sourceRepository: ^https://github\.com/acme/
  - prefix: example.com/open
    require: none
    keys: [good.pub]
  - prefix: Example.COM:443/strict/
    keys: [good.pub]
`, goodPub, issuer, identity))
	v, err := NewVerifier(pol, Options{Sigstore: &sigstorego.Local{TrustedMaterial: vs}})
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("manifest")
	elsewhere := digest.FromString("another manifest")
	prov := &Provenance{SourceRepository: "https://github.com/acme/skills", Revision: "abc", Builder: "test", Name: "x", Version: "1.0.0"}
	badProv := &Provenance{SourceRepository: "https://github.com/evil/skills", Builder: "test"}
	env := func(b ...[]byte) []Envelope {
		var out []Envelope
		for i, x := range b {
			out = append(out, Envelope{Referrer: digest.FromString(fmt.Sprint(i)), Bundle: x})
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		repo       string
		envs       []Envelope
		wantSigner string // "" with wantErr
		wantErr    string // substring of a PolicyError; "" means accepted
	}{
		{"valid key signature", repo, env(keySign(t, good, d, PredicateSign, nil)), "key:sha256:", ""},
		{"wrong key", repo, env(keySign(t, other, d, PredicateSign, nil)), "", "no trusted key verifies it"},
		{"signature over another digest", repo, env(keySign(t, good, elsewhere, PredicateSign, nil)), "", "artifact digest does not match"},
		{"missing signature where required", repo, nil, "", "not signed"},
		{"corrupted bundle JSON", repo, env([]byte(`{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json",`)), "", "corrupt bundle"},
		{"tampered bundle payload", repo, env(tamperPayload(t, keySign(t, good, d, PredicateSign, nil), d)), "", "no trusted key verifies it"},
		{"unreadable referrer", repo, []Envelope{{Referrer: d, Err: errors.New("integrity check failed")}}, "", "integrity check failed"},
		{"provenance alone is not a signature", repo, env(keySign(t, good, d, PredicateSLSAProvenance, prov.Predicate())), "", "no signature from a signer"},
		{"keyless right identity", repo, env(keylessSign(t, vs, identity, issuer, d, time.Minute)), identity + " (" + issuer + ")", ""},
		{"keyless wrong identity", repo, env(keylessSign(t, vs, "https://github.com/evil/x/.github/workflows/r.yml@refs/heads/main", issuer, d, time.Minute)), "", "expected SAN value"},
		{"keyless wrong issuer", repo, env(keylessSign(t, vs, identity, "https://accounts.example.com", d, time.Minute)), "", "expected issuer value"},
		{"keyless expired certificate", repo, env(keylessSign(t, vs, identity, issuer, d, time.Hour)), "", "outside certificate validity"},
		{"keyless over another digest", repo, env(keylessSign(t, vs, identity, issuer, elsewhere, time.Minute)), "", "artifact digest does not match"},
		{"one good among bad", repo, env([]byte("{}"), keySign(t, other, d, PredicateSign, nil), keySign(t, good, d, PredicateSign, nil)), "key:sha256:", ""},
		{"provenance rule stops at a segment boundary", "example.com/skills/vetted-not/pdf", env(keySign(t, good, d, PredicateSign, nil)), "key:sha256:", ""},
		{"provenance required, missing", "example.com/skills/vetted/pdf", env(keySign(t, good, d, PredicateSign, nil)), "", "no trusted provenance"},
		{"provenance from the wrong source", "example.com/skills/vetted/pdf", env(keySign(t, good, d, PredicateSign, nil), keySign(t, good, d, PredicateSLSAProvenance, badProv.Predicate())), "", "does not match"},
		{"provenance from the right source", "example.com/skills/vetted/pdf", env(keySign(t, good, d, PredicateSign, nil), keySign(t, good, d, PredicateSLSAProvenance, prov.Predicate())), "key:sha256:", ""},
		{"provenance signed with the wrong key", "example.com/skills/vetted/pdf", env(keySign(t, good, d, PredicateSign, nil), keySign(t, other, d, PredicateSLSAProvenance, prov.Predicate())), "", "no trusted provenance"},
		{"unsigned where not required", "example.com/open/pdf", nil, "", ""},
		{"signed where not required", "example.com/open/pdf", env(keySign(t, good, d, PredicateSign, nil)), "key:sha256:", ""},
		{"host in capitals is the same registry", "EXAMPLE.COM/skills/vetted/pdf", env(keySign(t, good, d, PredicateSign, nil)), "", "no trusted provenance"},
		{"host with the default port is the same registry", "example.com:443/skills/vetted/pdf", env(keySign(t, good, d, PredicateSign, nil)), "", "no trusted provenance"},
		{"policy prefix host spelling is canonicalised", "example.com/strict/pdf", nil, "", "not signed"},
		{"another port is another registry", "example.com:8443/skills/vetted/pdf", nil, "", ""},
		{"no rule", "other.example/pdf", env(keySign(t, other, d, PredicateSign, nil)), "", ""},
		{"prefix matches whole segments", "example.com/skills-evil/pdf", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := v.Verify(context.Background(), tc.repo, d, tc.envs)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Verify: %v; want accepted", err)
				}
				if got := res.Signer; !strings.HasPrefix(got, tc.wantSigner) || (tc.wantSigner == "" && got != "") {
					t.Errorf("signer = %q; want prefix %q", got, tc.wantSigner)
				}
				return
			}
			if !errors.Is(err, ErrPolicy) {
				t.Fatalf("Verify: err = %v; want ErrPolicy (signer %q)", err, res.Signer)
			}
			if got := err.Error(); !strings.Contains(got, tc.wantErr) {
				t.Errorf("error = %q; want it to contain %q", got, tc.wantErr)
			}
		})
	}
}

func TestVerifyProvenanceResult(t *testing.T) {
	dir := t.TempDir()
	good, _ := testKey(t, dir, "good")
	pol := writePolicy(t, dir, "version: 1\nrules:\n  - prefix: example.com\n    keys: [good.pub]\n")
	v, err := NewVerifier(pol, Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("m")
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &Provenance{SourceRepository: "https://github.com/acme/skills", Revision: "0123abc", Builder: "skillpm/dev", Name: "pdf", Version: "1.2.0", Content: digest.FromString("c"), BuildTime: at}
	res, err := v.Verify(context.Background(), repo, d, []Envelope{{Bundle: keySign(t, good, d, PredicateSign, nil)}, {Bundle: keySign(t, good, d, PredicateSLSAProvenance, p.Predicate())}})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Provenance
	if got == nil {
		t.Fatal("no provenance")
	}
	want := *p
	want.Manifest = d
	if *got != want {
		t.Errorf("provenance = %+v; want %+v", *got, want)
	}
}

// tamperPayload swaps a bundle's statement for another about the same
// digest, keeping the signature.
func tamperPayload(t *testing.T, b []byte, d digest.Digest) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	stmt, err := NewStatement("x", d, PredicateSign, map[string]string{"injected": "yes"})
	if err != nil {
		t.Fatal(err)
	}
	m["dsseEnvelope"].(map[string]any)["payload"] = base64.StdEncoding.EncodeToString(stmt)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
