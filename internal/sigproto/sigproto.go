// Package sigproto is the boundary between skillpm and its sigstore
// cryptography: the requests a Backend answers (verify a bundle, sign a
// statement, describe a bundle), and the line protocol over which the
// skillpm-sigstore helper program answers them.
//
// sigstore-go links in a large graph of packages (rekor's OpenAPI
// models, govalidator, gRPC, OpenTelemetry) whose package initialisers
// cost most of a skillpm process's start-up. Only signing and signature
// checks need them, so they live in a helper program, skillpm-sigstore
// (cmd/skillpm-sigstore, package internal/sigstorego), that skillpm
// starts when a command first needs it and talks to over its standard
// input and output: one JSON request per line, one JSON response per
// line, as git's remote helpers and docker's credential helpers do.
// This package imports nothing of sigstore's.
package sigproto

import (
	"context"
	"errors"
	"time"
)

// Version is the protocol version; a helper answers only requests of
// its own version, so a skillpm and a helper from different builds
// fail with a clear message instead of misreading each other.
const Version = 1

// HelperName is the helper program's file name (without ".exe").
const HelperName = "skillpm-sigstore"

// ErrHelperMissing is wrapped when the skillpm-sigstore helper program
// is neither beside skillpm's executable nor on PATH.
var ErrHelperMissing = errors.New(HelperName + " is not installed")

// ErrHelper is wrapped when the helper failed or spoke out of protocol
// (as opposed to answering a request with an error, which is the
// request's error).
var ErrHelper = errors.New(HelperName + " failed")

// Identity is a trusted keyless signer: a certificate's issuer and
// subject, each exact or a regular expression.
type Identity struct {
	Issuer        string `json:"issuer,omitempty"`
	IssuerRegexp  string `json:"issuerRegexp,omitempty"`
	Subject       string `json:"subject,omitempty"`
	SubjectRegexp string `json:"subjectRegexp,omitempty"`
}

// VerifyRequest asks whether Bundle is a DSSE bundle over the sha256
// manifest digest Manifest, signed by one of Keys (when it carries a
// key hint) or, keyless, by one of Identities under the trusted root.
type VerifyRequest struct {
	// Manifest is the digest the statement must be about ("sha256:…").
	Manifest string `json:"manifest"`
	// Bundle is the sigstore bundle JSON.
	Bundle []byte `json:"bundle"`
	// Keys are the trusted public keys, PKIX DER.
	Keys [][]byte `json:"keys,omitempty"`
	// Identities are the trusted keyless signers.
	Identities []Identity `json:"identities,omitempty"`
	// TrustedRoot is the path of a sigstore trusted_root.json for
	// keyless bundles; "" fetches the public-good root (TUF) when a
	// keyless bundle first needs it.
	TrustedRoot string `json:"trustedRoot,omitempty"`
}

// VerifyResponse is a verified bundle: who signed it and the verified
// DSSE payload (the in-toto statement, not yet checked against the
// manifest: the caller does that).
type VerifyResponse struct {
	// Signer is "key:sha256:<hex of the PKIX key>" or
	// "<subject> (<issuer>)".
	Signer string `json:"signer"`
	// Payload is the DSSE envelope's payload.
	Payload []byte `json:"payload"`
}

// Keyless names the services of keyless signing.
type Keyless struct {
	FulcioURL string `json:"fulcioURL"`
	RekorURL  string `json:"rekorURL"`
	// TSAURL is a timestamp authority's endpoint; "" means none.
	TSAURL string `json:"tsaURL,omitempty"`
	// IDToken is the OIDC identity token Fulcio certifies.
	IDToken string `json:"idToken"`
	// Timeout bounds each request; 0 means 30s.
	Timeout time.Duration `json:"timeout,omitempty"`
}

// SignRequest asks for a sigstore bundle (v0.3) of a DSSE envelope of
// Statement (an in-toto statement), signed with PrivateKey or keyless.
type SignRequest struct {
	// Statement is the in-toto statement JSON.
	Statement []byte `json:"statement"`
	// PayloadType is the DSSE payload type.
	PayloadType string `json:"payloadType"`
	// PrivateKey is an ECDSA P-256 key, PKCS#8 DER; nil means an
	// ephemeral key, which needs Keyless.
	PrivateKey []byte `json:"privateKey,omitempty"`
	// Keyless, when set, certifies the key with Fulcio and logs the
	// signature in Rekor.
	Keyless *Keyless `json:"keyless,omitempty"`
}

// SignResponse is the signed bundle.
type SignResponse struct {
	// Bundle is the sigstore bundle JSON.
	Bundle []byte `json:"bundle"`
}

// DescribeRequest asks what a bundle claims, unverified.
type DescribeRequest struct {
	Bundle []byte `json:"bundle"`
}

// DescribeResponse is what a bundle claims about itself: for display,
// never for trust decisions.
type DescribeResponse struct {
	PredicateType string `json:"predicateType"`
	Signer        string `json:"signer"`
}

// Backend does skillpm's sigstore cryptography. internal/sigstorego
// implements it in process; Helper forwards it to skillpm-sigstore.
// Every method is safe for concurrent use.
type Backend interface {
	Verify(ctx context.Context, q *VerifyRequest) (*VerifyResponse, error)
	Sign(ctx context.Context, q *SignRequest) (*SignResponse, error)
	Describe(ctx context.Context, q *DescribeRequest) (*DescribeResponse, error)
}

// request is one line the helper reads: exactly one of the operations.
type request struct {
	Version  int              `json:"version"`
	Verify   *VerifyRequest   `json:"verify,omitempty"`
	Sign     *SignRequest     `json:"sign,omitempty"`
	Describe *DescribeRequest `json:"describe,omitempty"`
}

// response is one line the helper writes: the operation's answer, or
// Error (the request's error, for the caller to report).
type response struct {
	Verify   *VerifyResponse   `json:"verify,omitempty"`
	Sign     *SignResponse     `json:"sign,omitempty"`
	Describe *DescribeResponse `json:"describe,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// maxLine bounds one request or response line: bundles are at most
// 1 MiB, base64 in JSON makes that about 1.4 MiB.
const maxLine = 8 << 20
