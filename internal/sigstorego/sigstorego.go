// Package sigstorego does skillpm's sigstore cryptography with
// sigstore-go: it verifies a bundle against trusted keys or keyless
// identities, signs an in-toto statement into a bundle, and describes
// a bundle. It implements sigproto.Backend; the skillpm-sigstore helper
// program serves it, so that skillpm itself does not link sigstore-go
// (see package sigproto). Tests use it in process.
package sigstorego

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	protocommon "github.com/sigstore/protobuf-specs/gen/pb-go/common/v1"
	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
	"github.com/sigstore/sigstore-go/pkg/root"
	"github.com/sigstore/sigstore-go/pkg/sign"
	sgverify "github.com/sigstore/sigstore-go/pkg/verify"
	"github.com/sigstore/sigstore/pkg/signature"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/internal/sigproto"
)

// Local is the in-process Backend. The zero value is ready: keyless
// bundles are checked against the request's trusted root (or the
// public-good one), and keyless signing uses the request's services.
type Local struct {
	// TrustedMaterial, when set, verifies keyless bundles instead of the
	// request's trusted root (tests: a virtual sigstore).
	TrustedMaterial root.TrustedMaterial
	// CertificateProvider, when set, certifies keyless signatures
	// instead of the request's Fulcio (tests).
	CertificateProvider sign.CertificateProvider
	// TransparencyLogs, when set, log keyless signatures instead of the
	// request's Rekor (tests).
	TransparencyLogs []sign.Transparency

	mu      sync.Mutex
	keyless map[string]*keylessOnce
}

type keylessOnce struct {
	once sync.Once
	v    *sgverify.Verifier
	err  error
}

var _ sigproto.Backend = (*Local)(nil)

// maxBundle bounds one bundle's JSON.
const maxBundle = 1 << 20

// Verify implements sigproto.Backend: the bundle must be signed over the
// manifest digest by one of q.Keys (a key-signed bundle) or by one of
// q.Identities (a keyless one, with a transparency log entry and an
// observer timestamp).
func (l *Local) Verify(_ context.Context, q *sigproto.VerifyRequest) (*sigproto.VerifyResponse, error) {
	d, err := digest.Parse(q.Manifest)
	if err != nil {
		return nil, fmt.Errorf("manifest digest %q: %v", q.Manifest, err)
	}
	b, artifact, err := parseBundle(d, q.Bundle)
	if err != nil {
		return nil, err
	}
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, err
	}
	payload := func() *sigproto.VerifyResponse {
		return &sigproto.VerifyResponse{Payload: b.GetDsseEnvelope().GetPayload()}
	}
	if vc.Certificate() == nil {
		if len(q.Keys) == 0 {
			return nil, errors.New("signed with a key, and the policy trusts no keys here")
		}
		var errs []string
		for _, der := range q.Keys {
			id, kv, err := newKeyVerifier(der)
			if err == nil {
				_, err = kv.Verify(b, sgverify.NewPolicy(artifact, sgverify.WithKey()))
			}
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			r := payload()
			r.Signer = id
			return r, nil
		}
		return nil, fmt.Errorf("no trusted key verifies it: %s", strings.Join(dedupe(errs), "; "))
	}
	if len(q.Identities) == 0 {
		return nil, errors.New("signed keyless, and the policy trusts no identities here")
	}
	kv, err := l.keylessVerifier(q.TrustedRoot)
	if err != nil {
		return nil, err
	}
	opts := make([]sgverify.PolicyOption, 0, len(q.Identities))
	for _, id := range q.Identities {
		ci, err := sgverify.NewShortCertificateIdentity(id.Issuer, id.IssuerRegexp, id.Subject, id.SubjectRegexp)
		if err != nil {
			return nil, err
		}
		opts = append(opts, sgverify.WithCertificateIdentity(ci))
	}
	out, err := kv.Verify(b, sgverify.NewPolicy(artifact, opts...))
	if err != nil {
		return nil, err
	}
	r := payload()
	if out.Signature != nil && out.Signature.Certificate != nil {
		c := out.Signature.Certificate
		r.Signer = fmt.Sprintf("%s (%s)", c.SubjectAlternativeName, c.Extensions.Issuer)
	}
	return r, nil
}

// newKeyVerifier verifies bundles signed with the PKIX DER key (offline:
// no transparency log or timestamps).
func newKeyVerifier(der []byte) (string, *sgverify.Verifier, error) {
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return "", nil, fmt.Errorf("trusted key: %v", err)
	}
	sv, err := signature.LoadVerifier(pub, crypto.SHA256)
	if err != nil {
		return "", nil, err
	}
	m := root.NewTrustedPublicKeyMaterial(func(string) (root.TimeConstrainedVerifier, error) {
		return root.NewExpiringKey(sv, time.Time{}, time.Time{}), nil
	})
	kv, err := sgverify.NewVerifier(m, sgverify.WithNoObserverTimestamps())
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(der)
	return "key:sha256:" + hex.EncodeToString(sum[:]), kv, nil
}

// parseBundle decodes a DSSE bundle about the sha256 manifest digest d.
func parseBundle(d digest.Digest, data []byte) (*bundle.Bundle, sgverify.ArtifactPolicyOption, error) {
	if len(data) > maxBundle {
		return nil, nil, fmt.Errorf("bundle of %d bytes is over the %d byte limit", len(data), maxBundle)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		return nil, nil, fmt.Errorf("corrupt bundle: %v", err)
	}
	if b.GetDsseEnvelope() == nil {
		return nil, nil, errors.New("bundle holds no DSSE in-toto statement")
	}
	raw, err := hex.DecodeString(d.Encoded())
	if err != nil || d.Algorithm() != digest.SHA256 {
		return nil, nil, fmt.Errorf("manifest digest %q is not sha256", d)
	}
	return &b, sgverify.WithArtifactDigest("sha256", raw), nil
}

// keylessVerifier loads the trusted root at path ("" public-good, or
// l.TrustedMaterial) once, and the verifier over it.
func (l *Local) keylessVerifier(path string) (*sgverify.Verifier, error) {
	if l.TrustedMaterial != nil {
		path = "\x00material"
	}
	l.mu.Lock()
	if l.keyless == nil {
		l.keyless = map[string]*keylessOnce{}
	}
	k := l.keyless[path]
	if k == nil {
		k = &keylessOnce{}
		l.keyless[path] = k
	}
	l.mu.Unlock()
	k.once.Do(func() {
		m := l.TrustedMaterial
		var err error
		switch {
		case m != nil:
		case path != "":
			m, err = readTrustedRoot(path)
		default:
			m, err = root.FetchTrustedRoot()
		}
		if err != nil {
			k.err = fmt.Errorf("load the sigstore trusted root: %w", err)
			return
		}
		k.v, k.err = sgverify.NewVerifier(m, sgverify.WithTransparencyLog(1), sgverify.WithObserverTimestamps(1))
	})
	return k.v, k.err
}

// maxTrustedRoot bounds a trusted_root.json (the public-good one is
// about 10 KiB).
const maxTrustedRoot = 4 << 20

// trustedRootMediaType begins the mediaType of every version of a
// sigstore trusted root.
const trustedRootMediaType = "application/vnd.dev.sigstore.trustedroot"

// readTrustedRoot reads the trusted root at path: a regular file of at
// most maxTrustedRoot bytes. The path comes from a trust policy that a
// project's skills.yaml may name, so the file may be anything (a FIFO,
// a device, a token): why it is not a trusted root never quotes it,
// since the reason is shown in verify's output (CI logs), unless it
// says it is one.
func readTrustedRoot(path string) (*root.TrustedRoot, error) {
	data, err := boundedfile.Read(path, maxTrustedRoot)
	if err != nil {
		return nil, err // names the path, never the content
	}
	var head struct {
		MediaType string `json:"mediaType"`
	}
	if json.Unmarshal(data, &head) != nil || !strings.HasPrefix(head.MediaType, trustedRootMediaType) {
		return nil, fmt.Errorf("%s is not a sigstore trusted_root.json (no %s… mediaType)", path, trustedRootMediaType)
	}
	tr, err := root.NewTrustedRootFromJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, nil
}

// Sign implements sigproto.Backend.
func (l *Local) Sign(ctx context.Context, q *sigproto.SignRequest) (*sigproto.SignResponse, error) {
	var kp sign.Keypair
	if q.PrivateKey != nil {
		k, err := x509.ParsePKCS8PrivateKey(q.PrivateKey)
		if err != nil {
			return nil, fmt.Errorf("parse the private key: %v", err)
		}
		ec, ok := k.(*ecdsa.PrivateKey)
		if !ok || ec.Curve != elliptic.P256() {
			return nil, errors.New("skillpm signs with ECDSA P-256 keys")
		}
		kp, err = newKeypair(ec)
		if err != nil {
			return nil, err
		}
	} else {
		var err error
		if kp, err = sign.NewEphemeralKeypair(nil); err != nil {
			return nil, err
		}
	}
	opts := sign.BundleOptions{Context: ctx}
	if k := q.Keyless; k != nil || l.CertificateProvider != nil {
		if k == nil {
			k = &sigproto.Keyless{}
		}
		opts.CertificateProvider = l.CertificateProvider
		if opts.CertificateProvider == nil {
			opts.CertificateProvider = sign.NewFulcio(&sign.FulcioOptions{BaseURL: k.FulcioURL, Timeout: k.Timeout, Retries: 1})
		}
		opts.CertificateProviderOptions = &sign.CertificateProviderOptions{IDToken: k.IDToken}
		opts.TransparencyLogs = l.TransparencyLogs
		if opts.TransparencyLogs == nil && k.RekorURL != "" {
			opts.TransparencyLogs = []sign.Transparency{sign.NewRekor(&sign.RekorOptions{BaseURL: k.RekorURL, Timeout: k.Timeout, Retries: 1})}
		}
		if k.TSAURL != "" {
			opts.TimestampAuthorities = []*sign.TimestampAuthority{sign.NewTimestampAuthority(&sign.TimestampAuthorityOptions{URL: k.TSAURL, Timeout: k.Timeout, Retries: 1})}
		}
	} else if q.PrivateKey == nil {
		return nil, errors.New("a signer needs a key or a certificate provider (keyless)")
	}
	pb, err := sign.Bundle(&sign.DSSEData{Data: q.Statement, PayloadType: q.PayloadType}, kp, opts)
	if err != nil {
		return nil, err
	}
	data, err := protojson.Marshal(pb)
	if err != nil {
		return nil, err
	}
	return &sigproto.SignResponse{Bundle: data}, nil
}

// Describe implements sigproto.Backend.
func (l *Local) Describe(_ context.Context, q *sigproto.DescribeRequest) (*sigproto.DescribeResponse, error) {
	if len(q.Bundle) > maxBundle {
		return nil, fmt.Errorf("bundle of %d bytes is over the %d byte limit", len(q.Bundle), maxBundle)
	}
	var b bundle.Bundle
	if err := b.UnmarshalJSON(q.Bundle); err != nil {
		return nil, fmt.Errorf("corrupt bundle: %v", err)
	}
	env := b.GetDsseEnvelope()
	if env == nil {
		return nil, errors.New("bundle holds no DSSE in-toto statement")
	}
	var s struct {
		PredicateType string `json:"predicateType"`
	}
	if err := json.Unmarshal(env.GetPayload(), &s); err != nil {
		return nil, fmt.Errorf("statement: %v", err)
	}
	c := &sigproto.DescribeResponse{PredicateType: s.PredicateType}
	vc, err := b.VerificationContent()
	if err != nil {
		return nil, err
	}
	if cert := vc.Certificate(); cert != nil {
		sum, err := certificate.SummarizeCertificate(cert)
		if err != nil {
			return nil, err
		}
		c.Signer = fmt.Sprintf("%s (%s)", sum.SubjectAlternativeName, sum.Extensions.Issuer)
	} else if pk := vc.PublicKey(); pk != nil {
		// sigstore-go's hint is the base64 SHA-256 of the PKIX key: the
		// same hash as the key's identity.
		if raw, err := base64.StdEncoding.DecodeString(pk.Hint()); err == nil && len(raw) == sha256.Size {
			c.Signer = "key:sha256:" + hex.EncodeToString(raw)
		} else {
			c.Signer = "key hint " + pk.Hint()
		}
	}
	return c, nil
}

// keypair is a long-lived ECDSA P-256 key as sigstore-go's sign.Keypair.
type keypair struct {
	key  *ecdsa.PrivateKey
	hint []byte
}

func newKeypair(k *ecdsa.PrivateKey) (*keypair, error) {
	der, err := x509.MarshalPKIXPublicKey(k.Public())
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	return &keypair{key: k, hint: []byte(base64.StdEncoding.EncodeToString(sum[:]))}, nil
}

func (k *keypair) GetHashAlgorithm() protocommon.HashAlgorithm {
	return protocommon.HashAlgorithm_SHA2_256
}

func (k *keypair) GetSigningAlgorithm() protocommon.PublicKeyDetails {
	return protocommon.PublicKeyDetails_PKIX_ECDSA_P256_SHA_256
}

func (k *keypair) GetHint() []byte                { return k.hint }
func (k *keypair) GetKeyAlgorithm() string        { return "ECDSA" }
func (k *keypair) GetPublicKey() crypto.PublicKey { return k.key.Public() }

func (k *keypair) GetPublicKeyPem() (string, error) {
	der, err := x509.MarshalPKIXPublicKey(k.key.Public())
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})), nil
}

// SignData signs the SHA-256 of data and returns the signature and the
// digest signed.
func (k *keypair) SignData(_ context.Context, data []byte) ([]byte, []byte, error) {
	sum := sha256.Sum256(data)
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, sum[:])
	if err != nil {
		return nil, nil, err
	}
	return sig, sum[:], nil
}

func dedupe(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
