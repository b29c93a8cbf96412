package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
)

// ErrNameMismatch is returned by PublishRepository when the destination
// is a repository named for another skill: published there, the skill
// could never be found by its name ('skillpm add NAME' looks for
// PREFIX/NAME).
var ErrNameMismatch = errors.New("repository is not named after the skill")

// PublishRepository returns the repository a skill called name is
// published to when the user names dest. As with 'helm push', dest is
// either the repository itself, when its last path segment is name, or a
// prefix that name is appended to: ghcr.io/acme/skills and
// ghcr.io/acme/skills/pdf both publish pdf to ghcr.io/acme/skills/pdf.
//
// A dest whose last segment is another name is refused with
// ErrNameMismatch when it carries a tag or already is a repository (an
// OCI layout folder, or a registry repository with versions): publishing
// pdf-tools into oci:./registry/pdf, or turning the registry folder
// oci:./registry into one skill's layout, would make it unfindable.
func (c *Client) PublishRepository(ctx context.Context, dest Reference, name string) (Reference, error) {
	last := path.Base(dest.Repository)
	if dest.IsLayout() {
		last = filepath.Base(dest.Layout)
	}
	if last == name {
		return dest, nil
	}
	if dest.Tag != "" {
		return Reference{}, fmt.Errorf("%w: %s is tagged, so it names a repository, but its last segment is %q, not %q", ErrNameMismatch, dest, last, name)
	}
	isRepo, err := c.holdsVersions(ctx, dest)
	if err != nil {
		return Reference{}, err
	}
	if isRepo {
		return Reference{}, fmt.Errorf("%w: %s is the repository of skill %q; skill %q is published to a repository of its own name", ErrNameMismatch, dest.Repo(), last, name)
	}
	out := dest
	if dest.IsLayout() {
		out.Layout = filepath.Join(dest.Layout, name)
	} else {
		out.Repository = path.Join(dest.Repository, name)
	}
	return out, nil
}

// holdsVersions reports whether ref already is a repository: an OCI
// layout folder, or a registry repository with version tags.
func (c *Client) holdsVersions(ctx context.Context, ref Reference) (bool, error) {
	if ref.IsLayout() {
		_, err := os.Stat(filepath.Join(ref.Layout, "oci-layout"))
		return err == nil, nil
	}
	vs, err := c.WithoutMirrors().Versions(ctx, ref)
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return len(vs) > 0, nil
}
