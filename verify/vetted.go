package verify

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// PredicateVetted is the predicate type of a vetted attestation: an org
// mirror's signed statement that it checked a skill version against its
// sync policy before copying it (skillpm sync with an attest key). A
// trust policy rule with a vetted: block demands one.
const PredicateVetted = "https://skillpm.dev/attestations/vetted/v1"

// Vetting is the predicate of a vetted attestation.
type Vetting struct {
	// Upstream is the repository the version was copied from.
	Upstream string `json:"upstream"`
	// Mirror is the repository it was copied to.
	Mirror string `json:"mirror"`
	// Checks names what the mirror's policy checked: "signature",
	// "lint:error" or "lint:warning", "license", "permissions",
	// "audit:high" (the audit's fail_on). Empty
	// means the version was copied without checks.
	Checks []string `json:"checks"`
	// Signer is the upstream signer the signature check accepted.
	Signer string `json:"signer,omitempty"`
	// Audit is the content audit's result, when the mirror's policy
	// audits (check "audit:SEVERITY").
	Audit *AuditSummary `json:"audit,omitempty"`
	// VettedAt is when the checks ran.
	VettedAt time.Time `json:"vettedAt"`
}

func parseVetting(raw json.RawMessage) (*Vetting, error) {
	var v Vetting
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("vetted predicate: %v", err)
	}
	if v.Mirror == "" || v.VettedAt.IsZero() {
		return nil, errors.New("vetted predicate names no mirror or time")
	}
	return &v, nil
}

// VettedRule demands a vetted attestation signed by one of its keys or
// identities: "only what our mirror vetted".
type VettedRule struct {
	// Keys are PEM public key files (relative to the policy file).
	Keys []string `yaml:"keys,omitempty" json:"keys,omitempty"`
	// Identities are trusted keyless vetters.
	Identities []Identity `yaml:"identities,omitempty" json:"identities,omitempty"`
	// Audit, when set, also demands that the attestation records a
	// content audit at this fail_on or stricter that the version passed.
	Audit *AuditRule `yaml:"audit,omitempty" json:"audit,omitempty"`

	// trust holds Keys and Identities as a rule verifyOne applies.
	trust *Rule
}
