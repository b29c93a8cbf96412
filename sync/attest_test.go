package sync

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	sgsign "github.com/sigstore/sigstore-go/pkg/sign"
	"oras.land/oras-go/v2"

	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/internal/sigstorego"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// vettedVerifier is a client policy that trusts dir/vetting.pub's
// vetting alone.
func vettedVerifier(t *testing.T, dir string) *verify.Verifier {
	t.Helper()
	p := filepath.Join(dir, "trust.yaml")
	if err := os.WriteFile(p, []byte("version: 1\nrules:\n  - prefix: \"*\"\n    vetted:\n      keys: [vetting.pub]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pol, err := verify.ReadPolicy(p)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verify.NewVerifier(pol, verify.Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// clientCheck verifies the mirror's copy of name@d as a client would.
func clientCheck(t *testing.T, c *registry.Client, v *verify.Verifier, root, name string, d ocispec.Descriptor) error {
	t.Helper()
	ref, err := registry.ParseReference("oci:" + filepath.Join(root, name) + "@" + d.Digest.String())
	if err != nil {
		t.Fatal(err)
	}
	_, err = verify.Check(bg, c, v, ref.Repo(), ref)
	return err
}

// An OCI layout mirror keeps the attestation: it is attached through the
// same open layout that writes the tag into index.json.
func TestAttestLayoutMirror(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up, mirror, keys := t.TempDir(), filepath.Join(t.TempDir(), "m"), t.TempDir()
	d := publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	org := writeKey(t, keys, "vetting")
	cfg := &Config{From: "oci:" + up, To: "oci:" + mirror}
	rep, err := Run(bg, Options{Config: cfg, Client: c, Attester: org, Sigstore: local})
	if err != nil || rep.Attested != 1 {
		t.Fatalf("run: %v, attested %d", err, rep.Attested)
	}
	if err := clientCheck(t, c, vettedVerifier(t, keys), mirror, "pdf", d); err != nil {
		t.Errorf("client on the layout mirror after an attesting run: %v; want vetted", err)
	}
	rep, _ = Run(bg, Options{Config: cfg, Client: c, Attester: org, Sigstore: local})
	if it := rep.Items[0]; it.Action != ActionSkipped || rep.Uploaded.Manifests != 0 {
		t.Errorf("second run: %s %q, %d manifests uploaded; want skipped, none", it.Action, it.Reason, rep.Uploaded.Manifests)
	}
}

// forge returns a vetted bundle signed by rogue whose key hint claims
// the key claimed.
func forge(t *testing.T, rogue, claimed *verify.Signer, d ocispec.Descriptor) []byte {
	t.Helper()
	a, err := rogue.Attest(bg, "pdf", d.Digest, verify.PredicateVetted, verify.Vetting{Mirror: "x", VettedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(a.Bundle, &m); err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(claimed.PublicKey())
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(strings.TrimPrefix(verify.KeyID(der), "key:sha256:"))
	m["verificationMaterial"].(map[string]any)["publicKey"].(map[string]any)["hint"] = base64.StdEncoding.EncodeToString(raw)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A vetted attestation that only claims the org's key (its hint), and one
// copied from upstream, do not stop the run from attesting: the mirror's
// own attestation must verify with the key.
func TestAttestIgnoresForgedAndUpstreamClaims(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up, mirror, keys := t.TempDir(), t.TempDir(), t.TempDir()
	d := publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	org, rogue := writeKey(t, keys, "vetting"), writeKey(t, keys, "rogue")
	ref, _ := registry.ParseReference("oci:" + filepath.Join(up, "pdf") + "@" + d.Digest.String())
	att := &verify.Attestation{Bundle: forge(t, rogue, org, d), PredicateType: verify.PredicateVetted}
	if _, err := verify.Attach(bg, c, ref, att, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	// Two mirrors that copied the version (and the forged claim) before
	// they attested.
	mirrors := []string{mirror, filepath.Join(t.TempDir(), "keyless")}
	for _, m := range mirrors {
		if _, err := Run(bg, Options{Config: &Config{From: "oci:" + up, To: "oci:" + m}, Client: c}); err != nil {
			t.Fatal(err)
		}
	}
	rep, _ := Run(bg, Options{Config: &Config{From: "oci:" + up, To: "oci:" + mirrors[0]}, Client: c, Attester: org, Sigstore: local})
	if it := rep.Items[0]; !it.Attested {
		t.Errorf("with the org's key: %s %q; want the org's attestation added", it.Action, it.Reason)
	}
	if err := clientCheck(t, c, vettedVerifier(t, keys), mirrors[0], "pdf", d); err != nil {
		t.Errorf("client: %v; want vetted", err)
	}
	// Without a key to check against (keyless, here planned by a dry
	// run) an attestation copied from upstream still does not count.
	rep, _ = Run(bg, Options{Config: &Config{From: "oci:" + up, To: "oci:" + mirrors[1], Attest: &AttestConfig{Keyless: true}}, Client: c, DryRun: true})
	if it := rep.Items[0]; it.Action != ActionPlanned || !it.Attested {
		t.Errorf("keyless plan: %s %q; want an attestation planned", it.Action, it.Reason)
	}
}

type failingCA struct{}

func (failingCA) GetCertificate(context.Context, sgsign.Keypair, *sgsign.CertificateProviderOptions) ([]byte, error) {
	return nil, errors.New("fulcio down")
}

// A version whose attestation could not be signed fails, is not reported
// vetted, and is not copied: no tag without the attestation.
func TestAttestSigningFails(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up, mirror := t.TempDir(), t.TempDir()
	publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	s, err := verify.NewSigner(verify.SignerOptions{Keyless: &sigproto.Keyless{}, Sigstore: &sigstorego.Local{CertificateProvider: failingCA{}}})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(bg, Options{Config: &Config{From: "oci:" + up, To: "oci:" + mirror}, Client: c, Attester: s, Sigstore: local})
	if err == nil {
		t.Error("Run with a failing signer: no error")
	}
	var b strings.Builder
	rep.Write(&b)
	if rep.Items[0].Action != ActionFailed || rep.Attested != 0 || strings.Contains(b.String(), "[vetted]") || !strings.Contains(b.String(), "fulcio down") {
		t.Errorf("failed signing: action %s, Attested=%d, report:\n%s", rep.Items[0].Action, rep.Attested, b.String())
	}
	if _, err := os.Stat(filepath.Join(mirror, "pdf")); err == nil {
		t.Error("the version reached the mirror without its attestation")
	}
}

// An upstream that copies the mirror's own vetted attestation back (it
// mirrors the mirror, say) must not make every run vet the version again
// and attach one more: the attestation verifies with the mirror's key,
// wherever else it is listed.
func TestAttestCopiedBackByUpstream(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up, mirror, keys := t.TempDir(), t.TempDir(), t.TempDir()
	d := publish(t, c, up, "pdf", "1.0.0", "license: MIT\n", false)
	org := writeKey(t, keys, "vetting")
	cfg := &Config{From: "oci:" + up, To: "oci:" + mirror}
	target := func(root string) registry.Target {
		t.Helper()
		ref, err := registry.ParseReference("oci:" + filepath.Join(root, "pdf") + "@" + d.Digest.String())
		if err != nil {
			t.Fatal(err)
		}
		tgt, err := c.Target(bg, ref, false)
		if err != nil {
			t.Fatal(err)
		}
		return tgt
	}
	count := func() int {
		t.Helper()
		have, err := referrers(bg, target(mirror), d)
		if err != nil {
			t.Fatal(err)
		}
		return len(have)
	}
	for run := range 3 {
		rep, err := Run(bg, Options{Config: cfg, Client: c, Attester: org, Sigstore: local})
		if err != nil {
			t.Fatal(err)
		}
		if it := rep.Items[0]; run > 0 && (it.Action != ActionSkipped || it.Attested) {
			t.Errorf("run %d: %s %q, attested %v; want skipped: the mirror's attestation is there", run+1, it.Action, it.Reason, it.Attested)
		}
		// The upstream copies whatever the mirror holds.
		have, err := referrers(bg, target(mirror), d)
		if err != nil {
			t.Fatal(err)
		}
		src, dst := target(mirror), target(up)
		for _, h := range have {
			if err := oras.CopyGraph(bg, src, dst, h, oras.CopyGraphOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := count(); n != 1 {
		t.Errorf("the mirror holds %d referrers after three runs; want its one attestation", n)
	}
	if err := clientCheck(t, c, vettedVerifier(t, keys), mirror, "pdf", d); err != nil {
		t.Errorf("client: %v; want vetted", err)
	}
}
