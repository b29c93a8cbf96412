package verify

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/registry"
)

// Attach pushes a as a referrer of the manifest ref names by digest.
func Attach(ctx context.Context, c *registry.Client, ref registry.Reference, a *Attestation, created time.Time) (ocispec.Descriptor, error) {
	return c.Attach(ctx, ref, a.Referrer(created))
}

// Found is a sigstore bundle referrer of a manifest, as listed.
type Found struct {
	Descriptor ocispec.Descriptor
	// PredicateType is the dev.sigstore.bundle.predicateType annotation
	// (unverified: for display only).
	PredicateType string
}

// List lists the sigstore bundle referrers of the manifest ref names by
// digest, without fetching them.
func List(ctx context.Context, c *registry.Client, ref registry.Reference) ([]Found, error) {
	descs, err := c.Referrers(ctx, ref, BundleMediaType)
	if err != nil {
		return nil, err
	}
	out := make([]Found, 0, len(descs))
	for _, d := range descs {
		out = append(out, Found{Descriptor: d, PredicateType: d.Annotations[AnnotationPredicateType]})
	}
	return out, nil
}

// Limits on what Fetch reads of one manifest's referrers. A signed skill
// has a few bundles of a few KiB (a signature, provenance, a mirror's
// vetting); whoever can push referrers, or a hostile registry, could
// list thousands, or bundles of a MiB each.
const (
	// maxReferrers is the most referrers read.
	maxReferrers = 128
	// maxReferrerBytes is the most bundle bytes kept.
	maxReferrerBytes = 8 << 20
)

// Fetch lists and downloads the sigstore bundles attached to the
// manifest ref names by digest, in parallel. A referrer that cannot be
// read (corrupt, over the size limit, gone) comes back as an Envelope
// with Err set, so verification reports it; network failures are
// returned. At most maxReferrers referrers and maxReferrerBytes of
// bundles are read; those past the limits come back with Err set too.
func Fetch(ctx context.Context, c *registry.Client, ref registry.Reference) ([]Envelope, error) {
	found, err := List(ctx, c, ref)
	if err != nil {
		return nil, err
	}
	var over []Envelope
	if len(found) > maxReferrers {
		over = append(over, Envelope{Referrer: found[maxReferrers].Descriptor.Digest,
			Err: fmt.Errorf("this and %d more referrers not read: over the limit of %d", len(found)-maxReferrers-1, maxReferrers)})
		found = found[:maxReferrers]
	}
	envs := make([]Envelope, len(found))
	var left atomic.Int64 // bundle bytes that may still be kept
	left.Store(maxReferrerBytes)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(4)
	for i, f := range found {
		g.Go(func() error {
			overBytes := fmt.Errorf("not read: the bundles attached to %s pass the limit of %d bytes", ref.Digest, maxReferrerBytes)
			if left.Load() <= 0 {
				envs[i] = Envelope{Referrer: f.Descriptor.Digest, Err: overBytes}
				return nil
			}
			m, blob, err := c.FetchReferrer(gctx, ref, f.Descriptor, maxBundle)
			if err != nil && !errors.Is(err, registry.ErrIntegrity) && !errors.Is(err, registry.ErrNotFound) {
				return err
			}
			if m != nil && m.ArtifactType != BundleMediaType {
				return nil // another kind of referrer (a layout lists all)
			}
			if blob != nil && left.Add(-int64(len(blob))) < 0 {
				blob, err = nil, overBytes
			}
			envs[i] = Envelope{Referrer: f.Descriptor.Digest, Bundle: blob, Err: err}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	out := envs[:0]
	for _, e := range envs {
		if e.Bundle != nil || e.Err != nil {
			out = append(out, e)
		}
	}
	return append(out, over...), nil
}

// Check applies v's rule for repo (the repository as skills.lock and the
// policy write it) to the manifest ref names by digest, fetching its
// bundles only when the rule trusts some signer.
func Check(ctx context.Context, c *registry.Client, v *Verifier, repo string, ref registry.Reference) (*Result, error) {
	var envs []Envelope
	if v.Relevant(repo) {
		var err error
		if envs, err = Fetch(ctx, c, ref); err != nil {
			return nil, err
		}
	}
	return v.Verify(ctx, repo, ref.Digest, envs)
}
