package registry

import (
	"context"
	"fmt"
	"io"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillpm/skillpm/internal/httpbound"
)

// boundedRepository is a registry's repository as every reader in this
// package (pull, inspect, verify, sync, bundle, mirrors) sees it: no
// blob is fetched before its descriptor's size has been checked, no read
// goes past that size, and every listing (tags, referrers) is paged
// through the pager, which stops loops and runaway lists.
type boundedRepository struct {
	*remote.Repository
	limits Limits
}

// emptyDigest is the digest of no bytes: the one descriptor whose size
// may be 0.
var emptyDigest = digest.FromBytes(nil)

// checkDescriptor refuses a descriptor whose size is not positive, or is
// over max, or whose digest is malformed, before anything is read: a
// size of 0 or less bounds nothing, and a registry answering with an
// endless body would otherwise fill the disk; a digest is shown to the
// user and becomes a file name, so it must be one (no controls, no
// slashes).
func checkDescriptor(desc ocispec.Descriptor, max int64, setting string) error {
	what := describeMediaType(desc.MediaType)
	if setting == "max_config_size" {
		what = "config"
	}
	if err := checkDigest(desc, what); err != nil {
		return err
	}
	switch {
	case desc.Size == 0 && desc.Digest == emptyDigest:
		return nil
	case desc.Size <= 0:
		return fmt.Errorf("%w: %s %s: its descriptor says %d bytes; sizes must be positive", ErrIntegrity, what, desc.Digest, desc.Size)
	case desc.Size > max:
		return fmt.Errorf("%w: %s is %d bytes, over the %d byte limit (limits.%s): %s", ErrIntegrity, what, desc.Size, max, setting, desc.Digest)
	}
	return nil
}

// checkDigest refuses the descriptor of what whose digest is not a
// valid digest of an algorithm skillpm can check.
func checkDigest(desc ocispec.Descriptor, what string) error {
	if err := desc.Digest.Validate(); err != nil {
		return fmt.Errorf("%w: %s digest %q is not a valid digest", ErrIntegrity, what, desc.Digest)
	}
	return nil
}

func describeMediaType(mt string) string {
	switch {
	case isManifestType(mt) || isIndexType(mt):
		return "manifest"
	case mt == "":
		return "blob"
	}
	return "blob (" + mt + ")"
}

// maxFor is the limit on desc's size, and the setting that sets it.
func (l Limits) maxFor(desc ocispec.Descriptor) (int64, string) {
	if isManifestType(desc.MediaType) || isIndexType(desc.MediaType) {
		return l.MaxManifestSize, "max_manifest_size"
	}
	return l.MaxBlobSize, "max_blob_size"
}

// Fetch checks desc and returns its content, read no further than
// desc.Size: a longer body fails with ErrIntegrity.
func (r *boundedRepository) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	max, setting := r.limits.maxFor(desc)
	if err := checkDescriptor(desc, max, setting); err != nil {
		return nil, fmt.Errorf("%s: %w", r.Reference.Registry, err)
	}
	rc, err := r.Repository.Fetch(ctx, desc)
	if err != nil {
		return nil, err
	}
	return httpbound.LimitReadCloser(rc, desc.Size), nil
}

// Tags lists tags through the pager.
func (r *boundedRepository) Tags(ctx context.Context, last string, fn func(tags []string) error) error {
	ctx, p := newPager(ctx, r.Reference.Registry, "tag list of "+r.Reference.Repository, r.limits)
	err := r.Repository.Tags(ctx, last, func(tags []string) error {
		if err := p.items(len(tags)); err != nil {
			return err
		}
		return fn(tags)
	})
	return p.unwrap(err)
}

// Referrers lists referrers through the pager.
func (r *boundedRepository) Referrers(ctx context.Context, desc ocispec.Descriptor, artifactType string, fn func(referrers []ocispec.Descriptor) error) error {
	ctx, p := newPager(ctx, r.Reference.Registry, "referrers of "+r.Reference.Repository+"@"+desc.Digest.String(), r.limits)
	err := r.Repository.Referrers(ctx, desc, artifactType, func(refs []ocispec.Descriptor) error {
		if err := p.items(len(refs)); err != nil {
			return err
		}
		for _, d := range refs {
			if err := checkDigest(d, "referrer"); err != nil {
				return fmt.Errorf("registry %s: referrers of %s: %w", r.Reference.Registry, desc.Digest, err)
			}
		}
		return fn(refs)
	})
	return p.unwrap(err)
}

// Predecessors lists referrers through the pager (oras-go's own calls
// the unbounded listing).
func (r *boundedRepository) Predecessors(ctx context.Context, desc ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	var out []ocispec.Descriptor
	err := r.Referrers(ctx, desc, "", func(refs []ocispec.Descriptor) error {
		out = append(out, refs...)
		return nil
	})
	return out, err
}
