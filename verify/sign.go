package verify

import (
	"context"
	"crypto"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/opencontainers/go-digest"

	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/registry"
)

// Media types, predicate types and annotations of cosign's bundle spec
// (specs/BUNDLE_SPEC.md in sigstore/cosign).
const (
	// BundleMediaType is the referrer's artifactType and its layer's
	// media type.
	BundleMediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
	// AnnotationContent says what the bundle holds: "dsse-envelope" or
	// "message-signature".
	AnnotationContent = "dev.sigstore.bundle.content"
	// AnnotationPredicateType is the in-toto predicate type of a
	// DSSE bundle.
	AnnotationPredicateType = "dev.sigstore.bundle.predicateType"
	// PredicateSign is the predicate of a plain signature, as cosign v3
	// writes it for "cosign sign": an in-toto statement whose subject is
	// the manifest digest and whose predicate is empty.
	PredicateSign = "https://sigstore.dev/cosign/sign/v1"
	// PredicateSLSAProvenance is SLSA provenance v1.
	PredicateSLSAProvenance = "https://slsa.dev/provenance/v1"
	// StatementType is the in-toto statement v1 type.
	StatementType = "https://in-toto.io/Statement/v1"
	// PayloadType is the DSSE payload type of an in-toto statement.
	PayloadType = "application/vnd.in-toto+json"
)

// Statement is an in-toto v1 statement about one skill manifest.
type Statement struct {
	Type          string          `json:"_type"`
	Subject       []Subject       `json:"subject"`
	PredicateType string          `json:"predicateType"`
	Predicate     json.RawMessage `json:"predicate"`
}

// Subject is an in-toto resource descriptor.
type Subject struct {
	Name   string            `json:"name,omitempty"`
	Digest map[string]string `json:"digest"`
}

// NewStatement returns the statement that predicate (nil for {}) of
// predicateType is about the manifest named name with digest d.
func NewStatement(name string, d digest.Digest, predicateType string, predicate any) ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("statement subject %q: %w", d, err)
	}
	raw := json.RawMessage("{}")
	if predicate != nil {
		b, err := json.Marshal(predicate)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return json.Marshal(Statement{
		Type:          StatementType,
		Subject:       []Subject{{Name: name, Digest: map[string]string{d.Algorithm().String(): d.Encoded()}}},
		PredicateType: predicateType,
		Predicate:     raw,
	})
}

// SignerOptions configure a Signer: a long-lived Keypair (offline, the
// bundle carries the key's hint), or Keyless services (Fulcio certifies
// an ephemeral key per signature, Rekor logs it).
type SignerOptions struct {
	// Keypair signs every bundle; nil means an ephemeral key per bundle,
	// which needs Keyless.
	Keypair *Keypair
	// Keyless names the services that certify and log a keyless
	// signature.
	Keyless *sigproto.Keyless
	// Sigstore does the signing: sigproto.Helper (the skillpm-sigstore
	// program) in skillpm, internal/sigstorego in process.
	Sigstore sigproto.Backend
}

// Signer signs skill manifests into sigstore bundles. It is safe for
// concurrent use.
type Signer struct{ opts SignerOptions }

// NewSigner returns a Signer for opts.
func NewSigner(opts SignerOptions) (*Signer, error) {
	if opts.Keypair == nil && opts.Keyless == nil {
		return nil, errors.New("a signer needs a key or a certificate provider (keyless)")
	}
	if opts.Sigstore == nil {
		return nil, errors.New("a signer needs a sigstore backend")
	}
	return &Signer{opts: opts}, nil
}

// PublicKey is the key s signs with, or nil when s is keyless.
func (s *Signer) PublicKey() crypto.PublicKey {
	if s.opts.Keyless != nil || s.opts.Keypair == nil {
		return nil
	}
	return s.opts.Keypair.GetPublicKey()
}

// SignedWith reports whether bundle is a statement of predicateType
// about d alone, signed with the key pub, as the sigstore backend sg
// verifies it.
func SignedWith(ctx context.Context, sg sigproto.Backend, pub crypto.PublicKey, bundle []byte, d digest.Digest, predicateType string) bool {
	if sg == nil || pub == nil || len(bundle) > maxBundle {
		return false
	}
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return false
	}
	out, err := sg.Verify(ctx, &sigproto.VerifyRequest{Manifest: d.String(), Bundle: bundle, Keys: [][]byte{der}})
	if err != nil {
		return false
	}
	stmt, err := statementOf(out.Payload, d)
	return err == nil && stmt.PredicateType == predicateType
}

// KeylessOptions are the services of keyless signing. Empty URLs mean
// the Sigstore public-good instance.
type KeylessOptions struct {
	FulcioURL string
	RekorURL  string
	// TSAURL is the timestamp authority's full endpoint URL; "" means
	// none (Rekor's integrated time is the signing time).
	TSAURL string
	// IDToken is the OIDC identity token Fulcio certifies.
	IDToken string
	// Timeout bounds each request; 0 means 30s.
	Timeout time.Duration
	// Sigstore does the signing (SignerOptions.Sigstore).
	Sigstore sigproto.Backend
}

// Public-good Sigstore endpoints.
const (
	PublicFulcioURL = "https://fulcio.sigstore.dev"
	PublicRekorURL  = "https://rekor.sigstore.dev"
)

// NewKeylessSigner returns a Signer that gets a short-lived certificate
// from Fulcio for o.IDToken and logs every signature in Rekor.
func NewKeylessSigner(o KeylessOptions) (*Signer, error) {
	if o.IDToken == "" {
		return nil, errors.New("keyless signing needs an OIDC identity token (SIGSTORE_ID_TOKEN, or run in GitHub Actions with id-token: write)")
	}
	if o.FulcioURL == "" {
		o.FulcioURL = PublicFulcioURL
	}
	if o.RekorURL == "" {
		o.RekorURL = PublicRekorURL
	}
	return NewSigner(SignerOptions{
		Keyless:  &sigproto.Keyless{FulcioURL: o.FulcioURL, RekorURL: o.RekorURL, TSAURL: o.TSAURL, IDToken: o.IDToken, Timeout: o.Timeout},
		Sigstore: o.Sigstore,
	})
}

// Attestation is a signed bundle ready to attach to its manifest.
type Attestation struct {
	// Bundle is the sigstore bundle v0.3, JSON.
	Bundle []byte
	// PredicateType is the statement's predicate type.
	PredicateType string
}

// Sign signs the manifest named name with digest d: a DSSE bundle of an
// in-toto statement with cosign's sign predicate, which is what
// "cosign sign" writes in the new bundle format.
func (s *Signer) Sign(ctx context.Context, name string, d digest.Digest) (*Attestation, error) {
	return s.Attest(ctx, name, d, PredicateSign, nil)
}

// Attest signs an in-toto statement of predicateType about the manifest.
func (s *Signer) Attest(ctx context.Context, name string, d digest.Digest, predicateType string, predicate any) (*Attestation, error) {
	stmt, err := NewStatement(name, d, predicateType, predicate)
	if err != nil {
		return nil, err
	}
	q := &sigproto.SignRequest{Statement: stmt, PayloadType: PayloadType, Keyless: s.opts.Keyless}
	if kp := s.opts.Keypair; kp != nil {
		if q.PrivateKey, err = x509.MarshalPKCS8PrivateKey(kp.key); err != nil {
			return nil, err
		}
	}
	out, err := s.opts.Sigstore.Sign(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("sign %s: %w", d, err)
	}
	data := out.Bundle
	return &Attestation{Bundle: data, PredicateType: predicateType}, nil
}

// Referrer returns the OCI referrer that carries a, as cosign's bundle
// spec lays it out. created is recorded as org.opencontainers.image.created.
func (a *Attestation) Referrer(created time.Time) registry.Referrer {
	d := digest.FromBytes(a.Bundle)
	return registry.Referrer{
		ArtifactType: BundleMediaType,
		Blob:         a.Bundle,
		Annotations: map[string]string{
			AnnotationContent:                  "dsse-envelope",
			AnnotationPredicateType:            a.PredicateType,
			"org.opencontainers.image.created": created.UTC().Format(time.RFC3339),
		},
		LayerAnnotations: map[string]string{
			"org.opencontainers.image.title": d.Algorithm().String() + "-" + d.Encoded() + ".sigstore.json",
		},
	}
}
