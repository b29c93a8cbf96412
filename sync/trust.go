package sync

import (
	"context"
	"fmt"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// TrustVerifier is the SignatureVerifier of the trust package: it checks
// sigstore bundles against a verify.Policy built from the sync policy's
// signature section.
type TrustVerifier struct {
	client   *registry.Client
	verifier *verify.Verifier
}

// NewTrustVerifier builds the verifier for sp once: its trust policy
// file, or a policy that trusts sp.Keys for every repository. sg checks
// the signatures (sigproto.Helper in skillpm).
func NewTrustVerifier(client *registry.Client, sp *SignaturePolicy, sg sigproto.Backend) (*TrustVerifier, error) {
	var (
		p   *verify.Policy
		err error
	)
	if sp.Policy != "" {
		p, err = verify.ReadPolicy(sp.Policy)
	} else {
		var keys []string
		for _, k := range sp.Keys {
			keys = append(keys, fmt.Sprintf("%q", k))
		}
		text := fmt.Sprintf("version: 1\nrules:\n  - prefix: \"*\"\n    keys: [%s]\n", strings.Join(keys, ", "))
		p, err = verify.ParsePolicy("sync policy.signature.keys", []byte(text))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: policy.signature: %v", ErrConfig, err)
	}
	v, err := verify.NewVerifier(p, verify.Options{Sigstore: sg})
	if err != nil {
		return nil, fmt.Errorf("%w: policy.signature: %v", ErrConfig, err)
	}
	return &TrustVerifier{client: client, verifier: v}, nil
}

// VerifySignature applies the trust policy's rule for repo to manifest
// and returns the verified signer. A repository the policy does not
// require signatures for still needs one here: vetting asks for a
// trusted signer.
func (t *TrustVerifier) VerifySignature(ctx context.Context, _ registry.Target, repo registry.Reference, manifest ocispec.Descriptor, _ []ocispec.Descriptor, _ *SignaturePolicy) (string, error) {
	res, err := verify.Check(ctx, t.client, t.verifier, repo.Repo(), repo.WithDigest(manifest.Digest))
	if err != nil {
		return "", err
	}
	if res.Signer == "" {
		reason := "no signature from a trusted signer"
		if len(res.Rejected) > 0 {
			reason += " (" + strings.Join(res.Rejected, "; ") + ")"
		}
		return "", fmt.Errorf("%s", reason)
	}
	return res.Signer, nil
}
