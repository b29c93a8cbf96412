package registry

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/registry/ociref"
)

// PublishOptions control Publish.
type PublishOptions struct {
	// Tag is the tag to publish under; "" means the package's version
	// (with "+" written "_").
	Tag string
	// Force moves an existing tag that points at different content.
	Force bool
}

// Published is the outcome of Publish.
type Published struct {
	// Ref names the published manifest by tag and digest.
	Ref Reference
	// Unchanged reports that the tag already pointed at this exact
	// manifest, so nothing was pushed.
	Unchanged bool
}

// Publish pushes a packed skill to the repository repo (a registry
// repository or an OCI layout folder, created if need be) and tags it
// with its version. It refuses, with ErrTagExists, to move a tag that
// points at different content unless opts.Force is set.
func (c *Client) Publish(ctx context.Context, p *Package, repo Reference, opts PublishOptions) (*Published, error) {
	tag := opts.Tag
	if tag == "" {
		tag = ociref.EscapeTag(p.Version)
	}
	if tag == "" {
		return nil, fmt.Errorf("publish %s: the skill has no version; set version in SKILL.md or pass one", p.Name)
	}
	ref := repo.WithTag(tag)
	t, err := c.open(ctx, repo, true)
	if err != nil {
		return nil, err
	}
	out := &Published{Ref: ref}
	out.Ref.Tag, out.Ref.Digest = tag, p.Manifest.Digest
	existing, err := t.Resolve(ctx, tag)
	switch err = classify(err); {
	case err == nil && existing.Digest == p.Manifest.Digest:
		out.Unchanged = true
		return out, nil
	case err == nil && !opts.Force:
		return nil, fmt.Errorf("publish %s: %w: %s already points at %s, this content is %s", ref, ErrTagExists, tag, existing.Digest, p.Manifest.Digest)
	case err != nil && !errors.Is(err, ErrNotFound):
		return nil, fmt.Errorf("publish %s: %w", ref, err)
	}
	if err := pushPackage(ctx, t, p, tag); err != nil {
		return nil, fmt.Errorf("publish %s: %w", ref, err)
	}
	return out, nil
}
