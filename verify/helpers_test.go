package verify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	protobundle "github.com/sigstore/protobuf-specs/gen/pb-go/bundle/v1"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"
	"github.com/sigstore/sigstore-go/pkg/tlog"
	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/internal/sigstorego"
)

// local does the sigstore cryptography in process.
var local = &sigstorego.Local{}

// withRoot is a backend checking keyless bundles against m; nil for a
// nil m (the verifier's own backend then applies).
func withRoot(m root.TrustedMaterial) sigproto.Backend {
	if m == nil {
		return nil
	}
	return &sigstorego.Local{TrustedMaterial: m}
}

// testKey returns a fresh key pair and the path of its public key PEM
// in dir.
func testKey(t *testing.T, dir, name string) (*Keypair, string) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := NewKeypair(k)
	if err != nil {
		t.Fatal(err)
	}
	pub, err := MarshalPublicKey(k.Public())
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name+".pub")
	if err := os.WriteFile(p, pub, 0o644); err != nil {
		t.Fatal(err)
	}
	return kp, p
}

func keySign(t *testing.T, kp *Keypair, d digest.Digest, predicateType string, predicate any) []byte {
	t.Helper()
	s, err := NewSigner(SignerOptions{Keypair: kp, Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Attest(context.Background(), "example.com/skills/pdf", d, predicateType, predicate)
	if err != nil {
		t.Fatal(err)
	}
	return a.Bundle
}

// virtualFulcio certifies one key for an identity, as Fulcio would.
type virtualFulcio struct{ cert *x509.Certificate }

func (f virtualFulcio) GetCertificate(context.Context, sign.Keypair, *sign.CertificateProviderOptions) ([]byte, error) {
	return f.cert.Raw, nil
}

// virtualRekor logs a bundle's signature in the virtual sigstore at a
// chosen time and adds a timestamp from its authority.
type virtualRekor struct {
	vs   *ca.VirtualSigstore
	cert *x509.Certificate
	at   time.Time
}

func (r virtualRekor) GetTransparencyLogEntry(_ context.Context, _ []byte, b *protobundle.Bundle) error {
	env := b.GetDsseEnvelope()
	sig := env.Signatures[0].Sig
	entry, err := r.vs.GenerateTlogEntry(r.cert, &dsse.Envelope{
		PayloadType: env.PayloadType,
		Payload:     base64.StdEncoding.EncodeToString(env.Payload),
		Signatures:  []dsse.Signature{{Sig: base64.StdEncoding.EncodeToString(sig)}},
	}, sig, r.at.Unix(), true)
	if err != nil {
		return err
	}
	// tlog.NewEntry leaves out the kind and the promise a bundle needs.
	tle := entry.TransparencyLogEntry()
	tle.KindVersion = &protorekor.KindVersion{Kind: "dsse", Version: "0.0.1"}
	logID, err := r.vs.RekorLogID()
	if err != nil {
		return err
	}
	set, err := r.vs.RekorSignPayload(tlog.RekorPayload{
		Body: base64.StdEncoding.EncodeToString(tle.CanonicalizedBody), IntegratedTime: tle.IntegratedTime, LogIndex: tle.LogIndex, LogID: logID,
	})
	if err != nil {
		return err
	}
	tle.InclusionPromise = &protorekor.InclusionPromise{SignedEntryTimestamp: set}
	b.VerificationMaterial.TlogEntries = append(b.VerificationMaterial.TlogEntries, tle)
	tsr, err := r.vs.TimestampResponse(sig)
	if err != nil {
		return err
	}
	b.VerificationMaterial.TimestampVerificationData = &protobundle.TimestampVerificationData{}
	b.VerificationMaterial.TimestampVerificationData.Rfc3161Timestamps = append(b.VerificationMaterial.TimestampVerificationData.Rfc3161Timestamps, &protocommon.RFC3161SignedTimestamp{SignedTimestamp: tsr})
	return nil
}

// keylessSign signs d as identity/issuer through the virtual sigstore,
// logging the signature logAfter after the certificate was issued.
func keylessSign(t *testing.T, vs *ca.VirtualSigstore, identity, issuer string, d digest.Digest, logAfter time.Duration) []byte {
	t.Helper()
	cert, priv, err := vs.GenerateLeafCert(identity, issuer)
	if err != nil {
		t.Fatal(err)
	}
	kp, err := NewKeypair(priv.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSigner(SignerOptions{
		Keypair: kp,
		Sigstore: &sigstorego.Local{
			CertificateProvider: virtualFulcio{cert},
			TransparencyLogs:    []sign.Transparency{virtualRekor{vs: vs, cert: cert, at: cert.NotBefore.Add(logAfter)}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.Sign(context.Background(), "example.com/skills/pdf", d)
	if err != nil {
		t.Fatal(err)
	}
	return a.Bundle
}

func writePolicy(t *testing.T, dir, text string) *Policy {
	t.Helper()
	p := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pol, err := ReadPolicy(p)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}
