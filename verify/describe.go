package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/skillpm/skillpm/internal/sigproto"
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

// Describe reads a bundle's claimed signer and predicate type with the
// sigstore backend sg.
func Describe(ctx context.Context, sg sigproto.Backend, data []byte) (*Claim, error) {
	if sg == nil {
		return nil, errors.New("no sigstore backend to read the bundle with")
	}
	out, err := sg.Describe(ctx, &sigproto.DescribeRequest{Bundle: data})
	if err != nil {
		return nil, err
	}
	return &Claim{PredicateType: out.PredicateType, Signer: out.Signer}, nil
}

// KeyID is the identity Verify reports for a key: "key:sha256:" and the
// hex SHA-256 of its PKIX encoding.
func KeyID(pkix []byte) string {
	sum := sha256.Sum256(pkix)
	return "key:sha256:" + hex.EncodeToString(sum[:])
}
