// Package verify signs skill manifests and checks their signatures and
// provenance against a trust policy. The sigstore cryptography itself is
// a sigproto.Backend given in Options and SignerOptions: in skillpm the
// skillpm-sigstore helper program (sigproto.Helper), so that skillpm does
// not link sigstore-go; in process, internal/sigstorego. This package
// keeps the policy: which rule applies, which signer, provenance and
// vetting it accepts, and the in-toto statement's subject.
//
// A signature is a sigstore bundle (v0.3) holding a DSSE envelope of an
// in-toto statement whose subject is the skill's manifest digest and
// whose predicate type is cosign's "https://sigstore.dev/cosign/sign/v1":
// what "cosign sign" writes in the new bundle format, attached as an OCI
// referrer in the shape of cosign's bundle spec. Provenance is the same
// with an SLSA provenance v1 predicate. Bundles are signed with a
// long-lived ECDSA P-256 key (offline; the bundle carries the key's
// hint) or keyless (Fulcio, Rekor and a timestamp authority).
//
// A Verifier is built once from a Policy and its trusted material; each
// Verify call applies the rule of one repository. Policies can be layered
// (NewLayeredVerifier: a machine's, the user's, a project's): a manifest
// must satisfy the rule of every layer, so a later layer adds
// requirements and never relaxes an earlier one (see Layer and
// Effective).
package verify
