package sync

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// referrers lists the manifests whose subject is desc (signatures,
// attestations), through the referrers API or its tag fallback.
func referrers(ctx context.Context, t registry.Target, desc ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	preds, err := t.Predecessors(ctx, desc)
	if err != nil {
		if errors.Is(registry.Classify(err), registry.ErrNotFound) {
			return nil, nil
		}
		return nil, registry.Classify(err)
	}
	var out []ocispec.Descriptor
	for _, p := range preds {
		if p.MediaType != ocispec.MediaTypeImageManifest && p.MediaType != ocispec.MediaTypeImageIndex {
			continue
		}
		if p.ArtifactType == "" {
			// Layout folders index plain descriptors: read the type from
			// the manifest itself.
			if data, err := content.FetchAll(ctx, t, p); err == nil {
				var m struct {
					ArtifactType string              `json:"artifactType"`
					Config       *ocispec.Descriptor `json:"config"`
				}
				if json.Unmarshal(data, &m) == nil {
					p.ArtifactType = m.ArtifactType
					if p.ArtifactType == "" && m.Config != nil {
						p.ArtifactType = m.Config.MediaType
					}
				}
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// missingReferrers returns the referrers of want that dst does not list
// for desc.
func missingReferrers(ctx context.Context, dst registry.Target, desc ocispec.Descriptor, want []ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	if len(want) == 0 {
		return nil, nil
	}
	have, err := referrers(ctx, dst, desc)
	if err != nil {
		return nil, fmt.Errorf("list referrers on the mirror: %w", err)
	}
	return missing(have, want), nil
}

// missing returns the descriptors of want that have does not hold,
// each digest once.
func missing(have, want []ocispec.Descriptor) []ocispec.Descriptor {
	listed := map[string]bool{}
	for _, h := range have {
		listed[h.Digest.String()] = true
	}
	var out []ocispec.Descriptor
	for _, w := range want {
		if !listed[w.Digest.String()] {
			listed[w.Digest.String()] = true
			out = append(out, w)
		}
	}
	return out
}

// maxReferrersCopied bounds the referrers of a version that sync copies,
// and, separately, the referrers of those referrers (all deeper levels
// together). A version has a few (a signature, provenance); an upstream
// listing thousands would flood the mirror, and clients read at most 128
// referrers of a manifest (verify's maxReferrers): a flood could push the
// mirror's own vetted attestation out of what they read. 64 leaves room
// for that attestation, and for another after the vetting key changes.
const maxReferrersCopied = 64

// keepReferrers returns the referrers of refs that sync copies, at most
// limit of them: sigstore bundles (signatures, provenance, attestations:
// what verify reads) first, then the others, each in the order refs
// lists them, a repeated digest once. left counts those left out.
func keepReferrers(refs []ocispec.Descriptor, limit int) (kept []ocispec.Descriptor, left int) {
	var others []ocispec.Descriptor
	for _, d := range missing(nil, refs) {
		if d.ArtifactType == verify.BundleMediaType {
			kept = append(kept, d)
		} else {
			others = append(others, d)
		}
	}
	kept = append(kept, others...)
	if limit = max(limit, 0); len(kept) > limit {
		return kept[:limit], len(kept) - limit
	}
	return kept, 0
}

// copyGraph copies desc, what it lists, its referrers refs (as
// keepReferrers selected them) and theirs, at most maxReferrersCopied of
// those at all deeper levels together, skipping whatever dst already
// has. A manifest listed as a referrer of a node but naming another node
// as its subject is left out (ownReferrers). It returns the referrers of
// desc it copied and how many referrers it left out, at any level.
// oras-go pushes every node after its successors, so a referrer is
// pushed after its subject.
func copyGraph(ctx context.Context, src, dst registry.Target, desc ocispec.Descriptor, refs []ocispec.Descriptor, opts oras.CopyGraphOptions) ([]ocispec.Descriptor, int, error) {
	roots, left, err := ownReferrers(ctx, src, desc, refs)
	if err != nil {
		return nil, 0, err
	}
	budget := maxReferrersCopied
	seen := map[string]bool{} // deeper referrers already counted
	// oras-go walks the referrers from one goroutine, before copying.
	find := func(ctx context.Context, _ content.ReadOnlyGraphStorage, d ocispec.Descriptor) ([]ocispec.Descriptor, error) {
		if d.Digest == desc.Digest {
			return roots, nil
		}
		preds, err := referrers(ctx, src, d)
		if err != nil {
			return nil, err
		}
		var fresh []ocispec.Descriptor
		for _, p := range preds {
			if !seen[p.Digest.String()] {
				seen[p.Digest.String()] = true
				fresh = append(fresh, p)
			}
		}
		kept, n := keepReferrers(fresh, budget)
		own, foreign, err := ownReferrers(ctx, src, d, kept)
		if err != nil {
			return nil, err
		}
		budget, left = budget-len(own), left+n+foreign
		return own, nil
	}
	err = oras.ExtendedCopyGraph(ctx, src, rewindable{dst}, desc, oras.ExtendedCopyGraphOptions{CopyGraphOptions: opts, FindPredecessors: find})
	return roots, left, err
}

// ownReferrers returns those of refs, listed by src as referrers of d,
// whose manifests name d as their subject, and how many do not. The
// listing is the registry's word; the subject is what the mirror indexes
// a referrer by, so a manifest of another subject copied as d's would
// land among that node's referrers, past the bounds sync keeps there.
func ownReferrers(ctx context.Context, src registry.Target, d ocispec.Descriptor, refs []ocispec.Descriptor) ([]ocispec.Descriptor, int, error) {
	var own []ocispec.Descriptor
	for _, r := range refs {
		if r.Size <= 0 || r.Size > maxReferrer {
			continue
		}
		data, err := content.FetchAll(ctx, src, r)
		if err != nil {
			return nil, 0, fmt.Errorf("read referrer %s: %w", r.Digest, err)
		}
		var m struct {
			Subject *ocispec.Descriptor `json:"subject"`
		}
		if json.Unmarshal(data, &m) == nil && m.Subject != nil && m.Subject.Digest == d.Digest {
			own = append(own, r)
		}
	}
	return own, len(refs) - len(own), nil
}

// maxBuffered bounds the blobs rewindable reads into memory.
const maxBuffered = 16 << 20

// rewindable pushes small blobs from memory, so that the HTTP transport
// can send an upload again after a reset or a 5xx (it cannot rewind a
// stream); larger blobs stream, and a failed upload is retried by copy.
type rewindable struct{ registry.Target }

func (r rewindable) Push(ctx context.Context, desc ocispec.Descriptor, content io.Reader) error {
	if desc.Size < 0 || desc.Size > maxBuffered {
		return r.Target.Push(ctx, desc, content)
	}
	data, err := io.ReadAll(io.LimitReader(content, desc.Size+1))
	if err != nil {
		return err
	}
	if int64(len(data)) != desc.Size {
		return fmt.Errorf("%w: %s is %d bytes, want %d", registry.ErrIntegrity, desc.Digest, len(data), desc.Size)
	}
	return r.Target.Push(ctx, desc, bytes.NewReader(data))
}

// repush pushes a referrer manifest dst already stores again, so that
// dst lists it among its subject's referrers.
func repush(ctx context.Context, src, dst registry.Target, desc ocispec.Descriptor) error {
	if err := oras.CopyGraph(ctx, src, dst, desc, oras.CopyGraphOptions{}); err != nil {
		return err
	}
	data, err := content.FetchAll(ctx, src, desc)
	if err != nil {
		return err
	}
	return dst.Push(ctx, desc, bytes.NewReader(data))
}

// copyOptions count what is uploaded.
func (r *runner) copyOptions() oras.CopyGraphOptions {
	return oras.CopyGraphOptions{
		Concurrency: r.opts.Client.Concurrency(),
		PostCopy: func(_ context.Context, d ocispec.Descriptor) error {
			switch d.MediaType {
			case ocispec.MediaTypeImageManifest, ocispec.MediaTypeImageIndex,
				"application/vnd.docker.distribution.manifest.v2+json", "application/vnd.docker.distribution.manifest.list.v2+json":
				r.manifests.Add(1)
			default:
				r.blobs.Add(1)
			}
			r.bytes.Add(d.Size)
			return nil
		},
	}
}

// hasVetted reports whether have, the mirror's referrers of desc, hold a
// vetted attestation of the mirror's own. When the vetting key pub is
// known, that is one that verifies with it, so that a new vetting key
// attests again and a forged claim counts for nothing; where else it is
// listed does not matter, so an upstream that copies the mirror's
// attestation back (one that mirrors the mirror) does not make each run
// attest once more. With pub nil (keyless: the identity a certificate
// will carry is not known before signing) any vetted attestation the
// mirror attached counts, and one upstream also lists does not: it may
// be upstream's own, copied.
func hasVetted(ctx context.Context, sg sigproto.Backend, dst registry.Target, desc ocispec.Descriptor, have, upstream []ocispec.Descriptor, pub crypto.PublicKey) (bool, error) {
	copied := map[string]bool{}
	if pub == nil {
		for _, u := range upstream {
			copied[u.Digest.String()] = true
		}
	}
	for _, h := range have {
		if copied[h.Digest.String()] || h.ArtifactType != verify.BundleMediaType || h.Size <= 0 || h.Size > maxReferrer {
			continue
		}
		if pt, ok := h.Annotations[verify.AnnotationPredicateType]; ok && pt != verify.PredicateVetted {
			continue // a signature or provenance, as the index says
		}
		data, err := content.FetchAll(ctx, dst, h)
		if err != nil {
			return false, fmt.Errorf("read referrer %s on the mirror: %w", h.Digest, registry.Classify(err))
		}
		var m ocispec.Manifest
		if json.Unmarshal(data, &m) != nil || m.Annotations[verify.AnnotationPredicateType] != verify.PredicateVetted || len(m.Layers) != 1 {
			continue
		}
		if pub == nil {
			return true, nil
		}
		if l := m.Layers[0]; l.Size > 0 && l.Size <= maxReferrer {
			blob, err := content.FetchAll(ctx, dst, l)
			if err != nil {
				return false, fmt.Errorf("read referrer %s on the mirror: %w", h.Digest, registry.Classify(err))
			}
			if verify.SignedWith(ctx, sg, pub, blob, desc.Digest, verify.PredicateVetted) {
				return true, nil
			}
		}
	}
	return false, nil
}

// maxReferrer bounds a referrer manifest or bundle sync reads.
const maxReferrer = 1 << 20
