package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"
)

// Referrer is an artifact to attach to a manifest: one blob (a
// signature bundle, an attestation) in an OCI 1.1 manifest with an empty
// config and the manifest as its subject.
type Referrer struct {
	// ArtifactType is the manifest's artifactType and the blob's media type.
	ArtifactType string
	// Blob is the layer's content.
	Blob []byte
	// Annotations go on the manifest (and, where the registry has no
	// referrers API, on its entry in the sha256-<hex> tag index).
	Annotations map[string]string
	// LayerAnnotations go on the layer descriptor.
	LayerAnnotations map[string]string
}

// Attach pushes r as a referrer of the manifest subject names (which must
// carry its digest) and returns the referrer manifest's descriptor. On a
// registry without the referrers API, oras-go maintains the
// "sha256-<hex>" tag index instead; in an OCI layout the referrer is
// kept untagged in index.json.
func (c *Client) Attach(ctx context.Context, subject Reference, r Referrer) (ocispec.Descriptor, error) {
	if subject.Digest == "" {
		return ocispec.Descriptor{}, fmt.Errorf("attach to %s: a digest is needed", subject)
	}
	t, err := c.open(ctx, subject, false)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	desc, err := AttachTo(ctx, t, subject.Digest.String(), r)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("attach to %s: %w", subject, err)
	}
	return desc, nil
}

// AttachTo is Attach on a repository already open: the manifest digest
// names the subject in t. Sync uses it on the mirror it is writing, so
// that an OCI layout's index.json, which the open target writes, lists
// the referrer.
func AttachTo(ctx context.Context, t oras.Target, digest string, r Referrer) (ocispec.Descriptor, error) {
	sdesc, err := t.Resolve(ctx, digest)
	if err != nil {
		return ocispec.Descriptor{}, classify(err)
	}
	layer := content.NewDescriptorFromBytes(r.ArtifactType, r.Blob)
	layer.Annotations = r.LayerAnnotations
	if err := pushIfMissing(ctx, t, layer, r.Blob); err != nil {
		return ocispec.Descriptor{}, classify(err)
	}
	subj := ocispec.Descriptor{MediaType: sdesc.MediaType, Digest: sdesc.Digest, Size: sdesc.Size}
	desc, err := oras.PackManifest(ctx, t, oras.PackManifestVersion1_1, r.ArtifactType, oras.PackManifestOptions{
		Subject:             &subj,
		Layers:              []ocispec.Descriptor{layer},
		ManifestAnnotations: r.Annotations,
	})
	if err != nil && !errors.Is(err, errdef.ErrAlreadyExists) {
		return ocispec.Descriptor{}, classify(err)
	}
	return desc, nil
}

func pushIfMissing(ctx context.Context, t oras.Target, desc ocispec.Descriptor, data []byte) error {
	if ok, err := t.Exists(ctx, desc); err == nil && ok {
		return nil
	}
	err := t.Push(ctx, desc, bytes.NewReader(data))
	if errors.Is(err, errdef.ErrAlreadyExists) {
		return nil
	}
	return err
}

// Referrers lists the manifests whose subject is the manifest ref names
// by digest, keeping those of artifactType ("" keeps all). It uses the
// registry's referrers API, or the "sha256-<hex>" tag index where the
// registry has none. Nothing is cached: the list can change. In an OCI
// layout, descriptors come without artifactType and are not filtered:
// check the manifest FetchReferrer returns.
func (c *Client) Referrers(ctx context.Context, ref Reference, artifactType string) ([]ocispec.Descriptor, error) {
	if ref.Digest == "" {
		return nil, fmt.Errorf("list referrers of %s: a digest is needed", ref)
	}
	t, err := c.open(ctx, ref, false)
	if err != nil {
		return nil, err
	}
	subject := ocispec.Descriptor{Digest: ref.Digest, MediaType: ocispec.MediaTypeImageManifest}
	var out []ocispec.Descriptor
	keep := func(d ocispec.Descriptor) {
		if artifactType == "" || d.ArtifactType == artifactType {
			out = append(out, d)
		}
	}
	switch t := t.(type) {
	case registry.ReferrerLister:
		err = t.Referrers(ctx, subject, artifactType, func(refs []ocispec.Descriptor) error {
			for _, d := range refs {
				keep(d)
			}
			return nil
		})
	case interface {
		content.ReadOnlyGraphStorage
		content.Resolver
	}:
		// A layout's graph is keyed by the whole descriptor.
		if subject, err = t.Resolve(ctx, ref.Digest.String()); err != nil {
			break
		}
		var preds []ocispec.Descriptor
		preds, err = t.Predecessors(ctx, subject)
		for _, p := range preds {
			// A layout's graph does not keep artifactType: callers
			// check the fetched manifest's.
			if p.MediaType == ocispec.MediaTypeImageManifest {
				out = append(out, p)
			}
		}
	}
	if err != nil && !errors.Is(err, errdef.ErrNotFound) {
		return nil, fmt.Errorf("list referrers of %s: %w", ref, classify(err))
	}
	return out, nil
}

// FetchReferrer reads a referrer manifest of ref's repository and its
// single layer, checking both against their digests and the blob
// against maxBlob bytes.
func (c *Client) FetchReferrer(ctx context.Context, ref Reference, desc ocispec.Descriptor, maxBlob int64) (*ocispec.Manifest, []byte, error) {
	t, err := c.open(ctx, ref, false)
	if err != nil {
		return nil, nil, err
	}
	if desc.Size <= 0 || desc.Size > c.limits.MaxManifestSize {
		// Index entries from the tag fallback carry sizes; refuse
		// ones that do not rather than read unbounded.
		return nil, nil, fmt.Errorf("referrer %s: %w: manifest size %d", desc.Digest, ErrIntegrity, desc.Size)
	}
	data, err := content.FetchAll(ctx, t, desc)
	if err != nil {
		return nil, nil, fmt.Errorf("referrer %s: %w", desc.Digest, classify(err))
	}
	var m ocispec.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, fmt.Errorf("referrer %s: %w: %v", desc.Digest, ErrIntegrity, err)
	}
	if len(m.Layers) != 1 {
		return &m, nil, fmt.Errorf("referrer %s: %w: %d layers, want 1", desc.Digest, ErrIntegrity, len(m.Layers))
	}
	l := m.Layers[0]
	if l.Size < 0 || l.Size > maxBlob {
		return &m, nil, fmt.Errorf("referrer %s: %w: layer of %d bytes, over the %d byte limit", desc.Digest, ErrIntegrity, l.Size, maxBlob)
	}
	blob, err := content.FetchAll(ctx, t, l)
	if err != nil {
		return &m, nil, fmt.Errorf("referrer %s: %w", desc.Digest, classify(err))
	}
	return &m, blob, nil
}

// Head asks the repository for the manifest ref names, bypassing the
// cache, and returns its descriptor: given a digest, it proves the
// registry still serves that digest. A range, or no tag at all, picks
// the tag as Resolve does. The descriptor is the tag's manifest, which
// may be an image index: Resolve finds the skill manifest inside.
func (c *Client) Head(ctx context.Context, ref Reference) (ocispec.Descriptor, error) {
	t, err := c.open(ctx, ref, false)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	name := ref.Tag
	if ref.Digest != "" {
		name = ref.Digest.String()
	} else if ref.Tag == "" || ref.Range != "" {
		if name, err = c.pickTag(ctx, t, ref); err != nil {
			return ocispec.Descriptor{}, err
		}
	}
	desc, err := t.Resolve(ctx, name)
	if err != nil {
		return ocispec.Descriptor{}, fmt.Errorf("resolve %s: %w", ref, classify(err))
	}
	if ref.Digest != "" && desc.Digest != ref.Digest {
		return desc, fmt.Errorf("resolve %s: %w: the registry answered %s", ref, ErrIntegrity, desc.Digest)
	}
	return desc, nil
}

// Fresh returns a client that shares c's connections and credentials but
// reads no manifest from the cache, for checks that must ask the
// registry (verify).
func (c *Client) Fresh() *Client {
	cp := *c
	cp.opts.Cache = nil
	return &cp
}
