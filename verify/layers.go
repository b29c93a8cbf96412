package verify

import (
	"context"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/internal/sigproto"
)

// Layer is one policy of a layered trust policy, and where it came from.
//
// Layers are floors stacked on each other: a machine's system policy, the
// user's, then a project's. A manifest is accepted only when it satisfies
// the rule of every layer that has one for its repository; each layer's
// rule is chosen, and its keys, identities and trusted root applied,
// within that layer alone. So a later layer can add requirements (its own
// rule must pass too) but can never relax an earlier one: a project's
// "require: none", its own keys, identities or trusted root, a longer
// prefix, or a rule without provenance or vetted: leaves the floor's rule
// to be satisfied as it is.
type Layer struct {
	// Name says where the policy came from, for messages and verify
	// --json: "system", "user", "project", "--policy", "--key".
	Name string
	// Policy is the layer's policy.
	Policy *Policy
	// Sigstore, when set, verifies this layer's bundles instead of
	// Options.Sigstore (tests: a layer with a trusted root of its own).
	Sigstore sigproto.Backend
}

// label names the layer in messages: "user policy /path/policy.yaml".
func (l Layer) label() string {
	if l.Name == "" {
		return ""
	}
	if l.Policy != nil && l.Policy.Path != "" {
		return l.Name + " policy " + l.Policy.Path
	}
	return l.Name + " policy"
}

// Verifier applies a trust policy of one or more layers (see Layer). It
// is built once, from the policies' trusted material, and is safe for
// concurrent use; each Verify call applies the rules of one repository.
type Verifier struct {
	layers []Layer
	vs     []*policyVerifier
}

// NewVerifier prepares the one policy p. Keyless trust material is
// loaded when first needed.
func NewVerifier(p *Policy, o Options) (*Verifier, error) {
	return NewLayeredVerifier([]Layer{{Policy: p}}, o)
}

// NewLayeredVerifier prepares a verifier that applies every layer, floors
// first (system, user, then project). There must be at least one.
func NewLayeredVerifier(layers []Layer, o Options) (*Verifier, error) {
	if len(layers) == 0 {
		return nil, errors.New("no trust policy")
	}
	v := &Verifier{layers: layers}
	for _, l := range layers {
		lo := o
		if l.Sigstore != nil {
			lo.Sigstore = l.Sigstore
		}
		pv, err := newPolicyVerifier(l.Policy, lo)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", l.label(), err)
		}
		v.vs = append(v.vs, pv)
	}
	return v, nil
}

// Layers returns the layers v applies, floors first.
func (v *Verifier) Layers() []Layer { return v.layers }

// Required reports whether some layer's rule for repo demands a
// signature or a vetted attestation.
func (v *Verifier) Required(repo string) bool {
	for _, pv := range v.vs {
		if pv.required(repo) {
			return true
		}
	}
	return false
}

// Relevant reports whether verifying repo can tell anything: some
// layer's rule for it trusts a signer or a vetter.
func (v *Verifier) Relevant(repo string) bool {
	for _, pv := range v.vs {
		if pv.relevant(repo) {
			return true
		}
	}
	return false
}

// Effective returns the rule v applies to repo (Effective).
func (v *Verifier) Effective(repo string) *EffectiveRule {
	return Effective(v.layers, repo)
}

// Verify checks the bundles attached to manifest d of repo against the
// rule of every layer. It returns a *PolicyError, naming the first layer
// (floors first) whose rule no bundle satisfies. A Result is returned
// either way; its signer, provenance and vetting are those the most
// basic layer verified.
func (v *Verifier) Verify(ctx context.Context, repo string, d digest.Digest, envs []Envelope) (*Result, error) {
	res := &Result{Repository: repo, Manifest: d, Policy: v.Effective(repo)}
	var denied error
	var rejected []string
	for i, pv := range v.vs {
		r, err := pv.verify(ctx, repo, d, envs)
		res.Required = res.Required || r.Required
		if res.Signer == "" {
			res.Signer = r.Signer
		}
		if res.Provenance == nil && r.Provenance != nil {
			res.Provenance, res.ProvenanceSigner = r.Provenance, r.ProvenanceSigner
		}
		if res.Vetting == nil && r.Vetting != nil {
			res.Vetting, res.VettedBy = r.Vetting, r.VettedBy
		}
		var pe *PolicyError
		switch {
		case denied != nil:
		case errors.As(err, &pe):
			pe.Policy = v.layers[i].label()
			denied, rejected = pe, r.Rejected
		case err != nil:
			denied = err
		}
		if denied == nil {
			rejected = append(rejected, r.Rejected...)
		}
	}
	if len(v.vs) > 1 {
		rejected = dedupe(rejected)
	}
	res.Rejected = rejected
	return res, denied
}

// EffectiveRule is what a layered policy demands of one repository: the
// rule of every layer that has one for it, each of which must be
// satisfied. It is shown by verify --json.
type EffectiveRule struct {
	// Require is "signed" when some layer's rule demands a signature,
	// else "none".
	Require string `json:"require"`
	// Provenance lists the source patterns that verified provenance
	// must match, one per layer that demands it.
	Provenance []string `json:"provenance,omitempty"`
	// Vetted is true when some layer demands a vetted attestation.
	Vetted bool `json:"vetted,omitempty"`
	// Audit is the strictest audit fail_on of the layers' rules, "" when
	// none audits.
	Audit string `json:"audit,omitempty"`
	// Rules are the matching rules, floors first.
	Rules []AppliedRule `json:"rules"`
}

// AppliedRule is one layer's rule for a repository, with its paths made
// absolute.
type AppliedRule struct {
	// Layer is where the policy came from (Layer.Name).
	Layer string `json:"layer,omitempty"`
	// File is the policy file.
	File string `json:"file,omitempty"`
	// Prefix is the rule's prefix.
	Prefix  string `json:"prefix"`
	Require string `json:"require"`
	// Keys are the trusted public key files.
	Keys       []string   `json:"keys,omitempty"`
	Identities []Identity `json:"identities,omitempty"`
	// Provenance is the source pattern provenance must match.
	Provenance string      `json:"provenance,omitempty"`
	Vetted     *VettedRule `json:"vetted,omitempty"`
	Audit      *AuditRule  `json:"audit,omitempty"`
	// TrustedRoot verifies this layer's keyless signatures ("" is the
	// public-good root, or material given in code).
	TrustedRoot string `json:"trustedRoot,omitempty"`
}

// Effective is the merge of layers for repo: each layer's longest-prefix
// rule for repo, floors first, and what they demand together. A layer
// with no rule for repo demands nothing of it. Nil when no layer has a
// rule for repo.
func Effective(layers []Layer, repo string) *EffectiveRule {
	var e EffectiveRule
	failOn := audit.None
	for _, l := range layers {
		if l.Policy == nil {
			continue
		}
		r := l.Policy.Rule(repo)
		if r == nil {
			continue
		}
		a := AppliedRule{Layer: l.Name, File: l.Policy.Path, Prefix: r.Prefix, Require: r.Require, Identities: r.Identities}
		for _, k := range r.Keys {
			a.Keys = append(a.Keys, l.Policy.resolve(k))
		}
		if r.Provenance != nil {
			a.Provenance = r.Provenance.SourceRepository
			e.Provenance = append(e.Provenance, a.Provenance)
		}
		if r.Vetted != nil {
			vr := &VettedRule{Identities: r.Vetted.Identities, Audit: r.Vetted.Audit}
			for _, k := range r.Vetted.Keys {
				vr.Keys = append(vr.Keys, l.Policy.resolve(k))
			}
			a.Vetted, e.Vetted = vr, true
		}
		if r.Audit != nil {
			a.Audit = r.Audit
			if s := r.Audit.Severity(); s > audit.None && (failOn == audit.None || s < failOn) {
				failOn = s
			}
		}
		if l.Policy.TrustedRoot != "" && len(r.Identities) > 0 {
			a.TrustedRoot = l.Policy.resolve(l.Policy.TrustedRoot)
		}
		if r.Require == RequireSigned {
			e.Require = RequireSigned
		}
		e.Rules = append(e.Rules, a)
	}
	if len(e.Rules) == 0 {
		return nil
	}
	if e.Require == "" {
		e.Require = RequireNone
	}
	if failOn > audit.None {
		e.Audit = failOn.String()
	}
	return &e
}
