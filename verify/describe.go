package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/registry"
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
	// The bundle's author wrote both: one line each (reason), for the
	// terminal inspect prints them on.
	return &Claim{PredicateType: reason(out.PredicateType), Signer: reason(out.Signer)}, nil
}

// maxBundleSize bounds a sigstore bundle DescribeReferrers reads.
const maxBundleSize = 1 << 20

// DescribeReferrers reads the sigstore bundles among in's referrers and
// what each claims (signer, predicate), keyed by referrer digest, for
// display. A referrer that cannot be read, is not a bundle or does not
// describe is left out, as are those past the first maxReferrers:
// nothing here is trusted.
func DescribeReferrers(ctx context.Context, sg sigproto.Backend, client *registry.Client, in *registry.Inspection) map[string]*Claim {
	out := map[string]*Claim{}
	read := 0
	for _, r := range in.Referrers {
		if r.ArtifactType != BundleMediaType && r.ArtifactType != "" {
			continue
		}
		if read++; read > maxReferrers {
			break // as many as a check reads (Fetch)
		}
		m, blob, err := client.FetchReferrer(ctx, in.Ref, r, maxBundleSize)
		if err != nil || m.ArtifactType != BundleMediaType {
			continue
		}
		if cl, err := Describe(ctx, sg, blob); err == nil {
			out[r.Digest.String()] = cl
		}
	}
	return out
}

// KeyID is the identity Verify reports for a key: "key:sha256:" and the
// hex SHA-256 of its PKIX encoding.
func KeyID(pkix []byte) string {
	sum := sha256.Sum256(pkix)
	return "key:sha256:" + hex.EncodeToString(sum[:])
}
