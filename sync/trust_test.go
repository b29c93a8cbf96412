package sync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillpm/skillpm/internal/sigstorego"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// writeKey generates a key pair, writes the public key to dir/name.pub
// and returns the signer of the private key.
func writeKey(t *testing.T, dir, name string) *verify.Signer {
	t.Helper()
	priv, pub, err := verify.GenerateKey([]byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".pub"), pub, 0o644); err != nil {
		t.Fatal(err)
	}
	kp, err := verify.LoadPrivateKey(priv, []byte("pw"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := verify.NewSigner(verify.SignerOptions{Keypair: kp, Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Signatures are vetted with the trust package: a signature by a trusted
// key passes, one by another key or none at all is rejected.
func TestTrustVerifier(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	up, keys := t.TempDir(), t.TempDir()
	acme, _ := writeKey(t, keys, "acme"), writeKey(t, keys, "other")
	d := publish(t, c, up, "signed", "1.0.0", "", false)
	ref, _ := registry.ParseReference("oci:" + filepath.Join(up, "signed") + "@" + d.Digest.String())
	att, err := acme.Sign(bg, "signed", d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := verify.Attach(bg, c, ref, att, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	publish(t, c, up, "unsigned", "1.0.0", "", false)

	for _, tc := range []struct {
		key        string
		signed     Action
		wantSigner string
	}{
		{"acme.pub", ActionCopied, "key:sha256:"},
		{"other.pub", ActionRejected, ""},
	} {
		sp := &SignaturePolicy{Keys: []string{filepath.Join(keys, tc.key)}}
		v, err := NewTrustVerifier(c, sp, local)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &Config{From: "oci:" + up, To: "oci:" + t.TempDir(), Policy: Policy{Signature: sp}}
		rep, _ := Run(bg, Options{Config: cfg, Client: c, Verifier: v})
		items := byName(rep)
		if it := items["signed@1.0.0"]; it.Action != tc.signed || !strings.HasPrefix(it.Signer, tc.wantSigner) {
			t.Errorf("%s: signed: got %s %q (%s), want %s signer %q…", tc.key, it.Action, it.Signer, it.Reason, tc.signed, tc.wantSigner)
		}
		if it := items["unsigned@1.0.0"]; it.Action != ActionRejected || it.Check != "signature" {
			t.Errorf("%s: unsigned: got %s %s, want rejected signature", tc.key, it.Action, it.Check)
		}
	}
}

// local does the sigstore cryptography in process.
var local = &sigstorego.Local{}
