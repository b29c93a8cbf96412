package registry

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/Masterminds/semver/v3"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry"

	"github.com/skillpm/skillpm/registry/ociref"
)

// Versions lists the semver versions tagged in ref's repository, lowest
// first. Tags that are not strict semver ("latest", signature and
// attestation tags) are left out; "_" in a tag reads as "+".
func (c *Client) Versions(ctx context.Context, ref Reference) ([]*semver.Version, error) {
	t, err := c.open(ctx, ref, false)
	if err != nil {
		return nil, err
	}
	vs, err := c.versions(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("list versions of %s: %w", ref.Repo(), err)
	}
	return vs, nil
}

func (c *Client) versions(ctx context.Context, t target) ([]*semver.Version, error) {
	var vs []*semver.Version
	err := t.Tags(ctx, "", func(tags []string) error {
		for _, tag := range tags {
			if v, ok := ociref.VersionFromTag(tag); ok {
				vs = append(vs, v)
			}
		}
		return nil
	})
	if err != nil {
		return nil, classify(err)
	}
	sort.Sort(semver.Collection(vs))
	return vs, nil
}

// pickTag chooses the tag for a reference without one, or with a range.
func (c *Client) pickTag(ctx context.Context, t target, ref Reference) (string, error) {
	vs, err := c.versions(ctx, t)
	if err != nil {
		return "", fmt.Errorf("list versions of %s: %w", ref.Repo(), err)
	}
	var cons *semver.Constraints
	if ref.Range != "" {
		if cons, err = semver.NewConstraint(ref.Range); err != nil {
			return "", err
		}
	}
	for i := len(vs) - 1; i >= 0; i-- {
		v := vs[i]
		if (cons == nil && v.Prerelease() == "") || (cons != nil && cons.Check(v)) {
			return ociref.EscapeTag(v.Original()), nil
		}
	}
	if cons == nil {
		return "latest", nil
	}
	return "", fmt.Errorf("%s: no version matches %q (%d versions published): %w", ref.Repo(), ref.Range, len(vs), ErrNotFound)
}

// Inspection is what Inspect reports about a skill artifact.
type Inspection struct {
	*Resolved
	// Referrers are the manifests whose subject is the skill manifest:
	// signatures, attestations, SBOMs.
	Referrers []ocispec.Descriptor
}

// Inspect resolves ref and lists its referrers, downloading no content.
func (c *Client) Inspect(ctx context.Context, ref Reference) (*Inspection, error) {
	res, err := c.Resolve(ctx, ref)
	if err != nil {
		return nil, err
	}
	in := &Inspection{Resolved: res, Referrers: []ocispec.Descriptor{}}
	desc := res.Layout.Manifest
	switch t := res.target.(type) {
	case registry.ReferrerLister:
		err = t.Referrers(ctx, desc, "", func(refs []ocispec.Descriptor) error {
			in.Referrers = append(in.Referrers, refs...)
			return nil
		})
	case interface {
		Predecessors(context.Context, ocispec.Descriptor) ([]ocispec.Descriptor, error)
	}:
		var preds []ocispec.Descriptor
		preds, err = t.Predecessors(ctx, desc)
		for _, p := range preds {
			if p.MediaType == ocispec.MediaTypeImageManifest {
				in.Referrers = append(in.Referrers, p)
			}
		}
	}
	if err != nil && !errors.Is(err, errdef.ErrNotFound) && !errors.Is(err, errdef.ErrUnsupported) {
		return nil, fmt.Errorf("list referrers of %s: %w", res.Ref, classify(err))
	}
	return in, nil
}
