package verify

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sigstore/sigstore-go/pkg/bundle"
	"github.com/sigstore/sigstore-go/pkg/fulcio/certificate"
)

// Claim is what a bundle says about itself, before any verification:
// for display (inspect), never for trust decisions.
type Claim struct {
	// PredicateType of its statement.
	PredicateType string `json:"predicateType"`
	// Signer is the identity the bundle names: its certificate's
	// subject and issuer, or the key ID its key hint stands for.
	Signer string `json:"signer"`
}

// Describe reads a bundle's claimed signer and predicate type.
func Describe(data []byte) (*Claim, error) {
	var b bundle.Bundle
	if err := b.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("corrupt bundle: %v", err)
	}
	env := b.GetDsseEnvelope()
	if env == nil {
		return nil, errors.New("bundle holds no DSSE in-toto statement")
	}
	var s Statement
	if err := json.Unmarshal(env.GetPayload(), &s); err != nil {
		return nil, fmt.Errorf("statement: %v", err)
	}
	c := &Claim{PredicateType: s.PredicateType}
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
		// same hash as KeyID.
		if raw, err := base64.StdEncoding.DecodeString(pk.Hint()); err == nil && len(raw) == sha256.Size {
			c.Signer = "key:sha256:" + hex.EncodeToString(raw)
		} else {
			c.Signer = "key hint " + pk.Hint()
		}
	}
	return c, nil
}

// KeyID is the identity Verify reports for a key: "key:sha256:" and the
// hex SHA-256 of its PKIX encoding.
func KeyID(pkix []byte) string {
	sum := sha256.Sum256(pkix)
	return "key:sha256:" + hex.EncodeToString(sum[:])
}
