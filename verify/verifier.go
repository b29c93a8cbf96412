package verify

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/skillpm/skillpm/internal/sigproto"
)

// ErrPolicy is wrapped by every *PolicyError: a repository's policy
// demands a signature (or provenance) that is missing, invalid or from a
// signer it does not trust.
var ErrPolicy = errors.New("trust policy violation")

// PolicyError says why a manifest was denied.
type PolicyError struct {
	Repository string
	Manifest   digest.Digest
	// Reason is one line for humans.
	Reason string
	// Policy names the layer whose rule denied it ("user policy
	// /home/me/.config/skillpm/policy.yaml"); "" for a verifier of one
	// unnamed policy.
	Policy string
	// Rejected lists why each bundle found was not accepted.
	Rejected []string
}

func (e *PolicyError) Error() string {
	s := fmt.Sprintf("%s@%s: %s", e.Repository, e.Manifest, e.Reason)
	if e.Policy != "" {
		s += ", by the " + e.Policy
	}
	if len(e.Rejected) > 0 {
		s += " (" + strings.Join(e.Rejected, "; ") + ")"
	}
	return s
}

// Is makes errors.Is(err, ErrPolicy) true.
func (e *PolicyError) Is(target error) bool { return target == ErrPolicy }

// Envelope is one sigstore bundle found attached to a manifest.
type Envelope struct {
	// Referrer is the digest of the referrer manifest that carried it.
	Referrer digest.Digest
	// Bundle is the bundle JSON.
	Bundle []byte
	// Err is why the referrer could not be read; Bundle is then nil.
	Err error
}

// Result is what Verify established about one manifest.
type Result struct {
	Repository string        `json:"repository"`
	Manifest   digest.Digest `json:"manifest"`
	// Required is true when the policy demands a signature.
	Required bool `json:"required"`
	// Signer is the verified signer identity ("" when none verified):
	// "key:sha256:<hex of the PKIX key>" or "<subject> (<issuer>)".
	Signer string `json:"signer,omitempty"`
	// Provenance is the verified provenance, when one was found.
	Provenance *Provenance `json:"provenance,omitempty"`
	// ProvenanceSigner signed it.
	ProvenanceSigner string `json:"provenanceSigner,omitempty"`
	// Vetting is the verified vetted attestation, when the rule asks
	// for one and a trusted vetter signed it.
	Vetting *Vetting `json:"vetting,omitempty"`
	// VettedBy signed it.
	VettedBy string `json:"vettedBy,omitempty"`
	// Rejected lists why bundles were not accepted.
	Rejected []string `json:"rejected,omitempty"`
	// Policy is the effective rule applied: every layer's rule for the
	// repository (Effective).
	Policy *EffectiveRule `json:"policy,omitempty"`
}

// Options tune NewVerifier.
type Options struct {
	// Sigstore verifies the bundles: sigproto.Helper (the
	// skillpm-sigstore program) in skillpm, internal/sigstorego in
	// process. Nil rejects every bundle (fails closed).
	Sigstore sigproto.Backend
}

// policyVerifier applies one trust policy (one layer of a Verifier). It
// is built once and is safe for concurrent use; each Verify call applies
// the rule of one repository.
type policyVerifier struct {
	policy *Policy
	keys   map[*Rule][][]byte // PKIX DER
	sg     sigproto.Backend
}

// newPolicyVerifier prepares p's keys. Keyless trust material is loaded
// by the backend when first needed.
func newPolicyVerifier(p *Policy, o Options) (*policyVerifier, error) {
	if p == nil {
		return nil, errors.New("no trust policy")
	}
	v := &policyVerifier{policy: p, keys: map[*Rule][][]byte{}, sg: o.Sigstore}
	var rules []*Rule
	for i := range p.Rules {
		rules = append(rules, &p.Rules[i])
		if vr := p.Rules[i].Vetted; vr != nil && vr.trust != nil {
			rules = append(rules, vr.trust)
		}
	}
	for _, r := range rules {
		for _, k := range r.keys {
			der, err := x509.MarshalPKIXPublicKey(k)
			if err != nil {
				return nil, err
			}
			v.keys[r] = append(v.keys[r], der)
		}
	}
	return v, nil
}

// required reports whether repo's rule demands a signature or a vetted
// attestation.
func (v *policyVerifier) required(repo string) bool {
	r := v.policy.Rule(repo)
	return r != nil && r.required()
}

// relevant reports whether verifying repo can tell anything: its rule
// trusts some signer or vetter.
func (v *policyVerifier) relevant(repo string) bool {
	r := v.policy.Rule(repo)
	return r != nil && (len(r.keys) > 0 || len(r.Identities) > 0 || r.Vetted != nil)
}

func (r *Rule) required() bool { return r.Require == RequireSigned || r.Vetted != nil }

// verify checks the bundles attached to manifest d of repo against
// repo's rule. It returns a *PolicyError when the rule demands a
// signature (or provenance) that no bundle provides. A Result is
// returned either way.
func (v *policyVerifier) verify(ctx context.Context, repo string, d digest.Digest, envs []Envelope) (*Result, error) {
	res := &Result{Repository: repo, Manifest: d}
	r := v.policy.Rule(repo)
	if r == nil {
		return res, nil
	}
	res.Required = r.required()
	for _, e := range envs {
		signer, stmt, err := "", (*Statement)(nil), e.Err
		if err == nil {
			signer, stmt, err = v.verifyOne(ctx, r, d, e.Bundle)
		}
		if e.Err == nil && r.Vetted != nil && (err != nil || stmt.PredicateType == PredicateVetted) {
			// Vetters are trusted for vetted attestations only, and only
			// vetters are trusted for them.
			done, verr := v.vetted(ctx, r, d, e.Bundle, res)
			switch {
			case done:
				continue
			case err == nil:
				err = fmt.Errorf("vetted attestation from %s, which the policy does not trust to vet (%v)", signer, verr)
			case len(r.keys) == 0 && len(r.Identities) == 0:
				err = verr // the rule trusts vetters only: theirs is the reason
			default:
				err = fmt.Errorf("%v; as a vetted attestation: %v", err, verr)
			}
		}
		if err != nil {
			res.reject(fmt.Sprintf("%s: %v", short(e.Referrer), err))
			continue
		}
		switch stmt.PredicateType {
		case PredicateSign:
			if res.Signer == "" {
				res.Signer = signer
			}
		case PredicateSLSAProvenance:
			p, err := parseProvenance(stmt.Predicate)
			if err != nil {
				res.reject(fmt.Sprintf("%s: provenance: %v", short(e.Referrer), err))
				continue
			}
			if r.Provenance != nil && !r.Provenance.re.MatchString(p.SourceRepository) {
				res.reject(fmt.Sprintf("%s: provenance source %q does not match %q", short(e.Referrer), p.SourceRepository, r.Provenance.SourceRepository))
				continue
			}
			if res.Provenance == nil {
				p.Manifest = d
				res.Provenance, res.ProvenanceSigner = p, signer
			}
		case PredicateVetted:
			// Signed by a trusted signer, and this rule asks for no
			// vetting: nothing to decide.
		default:
			res.reject(fmt.Sprintf("%s: predicate %q is neither a signature nor provenance", short(e.Referrer), stmt.PredicateType))
		}
	}
	if !res.Required {
		return res, nil
	}
	deny := func(reason string) (*Result, error) {
		return res, &PolicyError{Repository: repo, Manifest: d, Reason: reason, Rejected: res.Rejected}
	}
	signed := r.Require == RequireSigned
	switch {
	case signed && res.Signer == "" && len(envs) == 0:
		return deny(fmt.Sprintf("not signed, and the policy for %s requires a signature", r.Prefix))
	case signed && res.Signer == "":
		return deny(fmt.Sprintf("no signature from a signer the policy for %s trusts", r.Prefix))
	case r.Provenance != nil && res.Provenance == nil:
		return deny(fmt.Sprintf("no trusted provenance from a source matching %q", r.Provenance.SourceRepository))
	case r.Vetted != nil && res.Vetting == nil:
		return deny(fmt.Sprintf("not vetted: the policy for %s requires a vetted attestation from its mirror's key or identity", r.Prefix))
	}
	return res, nil
}

// vetted tries a bundle as a vetted attestation from one of r's
// vetters, and records it in res. It reports whether the bundle was one.
func (v *policyVerifier) vetted(ctx context.Context, r *Rule, d digest.Digest, data []byte, res *Result) (bool, error) {
	signer, stmt, err := v.verifyOne(ctx, r.Vetted.trust, d, data)
	if err != nil {
		return false, err
	}
	if stmt.PredicateType != PredicateVetted {
		return false, fmt.Errorf("predicate %q", stmt.PredicateType)
	}
	vt, err := parseVetting(stmt.Predicate)
	if err != nil {
		return false, err
	}
	if err := r.Vetted.Audit.vettedBy(vt); err != nil {
		return false, err
	}
	if res.Vetting == nil {
		res.Vetting, res.VettedBy = vt, signer
	}
	return true, nil
}

// maxBundle bounds one bundle's JSON.
const maxBundle = 1 << 20

// verifyOne verifies one bundle over d with r's keys and identities and
// returns the signer and the verified statement.
func (v *policyVerifier) verifyOne(ctx context.Context, r *Rule, d digest.Digest, data []byte) (string, *Statement, error) {
	if r == nil {
		// A Policy built in code, not by ParsePolicy: fail closed.
		return "", nil, errors.New("the policy was not validated (use ParsePolicy)")
	}
	if len(data) > maxBundle {
		return "", nil, fmt.Errorf("bundle of %d bytes is over the %d byte limit", len(data), maxBundle)
	}
	if v.sg == nil {
		return "", nil, errors.New("no sigstore backend to verify it with")
	}
	q := &sigproto.VerifyRequest{Manifest: d.String(), Bundle: data, Keys: v.keys[r]}
	for _, id := range r.Identities {
		q.Identities = append(q.Identities, sigproto.Identity(id))
	}
	if v.policy.TrustedRoot != "" {
		q.TrustedRoot = v.policy.resolve(v.policy.TrustedRoot)
	}
	out, err := v.sg.Verify(ctx, q)
	if err != nil {
		return "", nil, err
	}
	stmt, err := statementOf(out.Payload, d)
	return out.Signer, stmt, err
}

// statementOf decodes the verified bundle's statement and checks, again,
// that d is its only subject digest.
func statementOf(payload []byte, d digest.Digest) (*Statement, error) {
	var s Statement
	if err := json.Unmarshal(payload, &s); err != nil {
		return nil, fmt.Errorf("statement: %v", err)
	}
	if s.Type != StatementType {
		return nil, fmt.Errorf("statement type %q is not in-toto v1", s.Type)
	}
	if len(s.Subject) != 1 {
		return nil, fmt.Errorf("statement has %d subjects; a skill's is about its manifest alone", len(s.Subject))
	}
	if s.Subject[0].Digest["sha256"] != d.Encoded() {
		return nil, fmt.Errorf("statement is not about %s", d)
	}
	return &s, nil
}

// reject records why a bundle was not accepted, as one line (reason).
func (r *Result) reject(why string) { r.Rejected = append(r.Rejected, reason(why)) }

func short(d digest.Digest) string {
	s := d.String()
	if len(s) > 19 {
		return s[:19]
	}
	return s
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
