package sync

import (
	"context"
	"fmt"

	"github.com/Masterminds/semver/v3"

	"github.com/skillpm/skillpm/source/wellknown"
)

// WellKnownUpstream is a well-known origin's discovery index as an
// Upstream: every entry is a skill, at the version the index gives (or
// its SKILL.md's), pinned by its artifact digest.
type WellKnownUpstream struct {
	Client *wellknown.Client
	Origin string
}

// String is the origin.
func (u *WellKnownUpstream) String() string { return u.Origin }

// Versions reads the index: one version per entry.
func (u *WellKnownUpstream) Versions(ctx context.Context) ([]UpstreamVersion, error) {
	idx, err := u.Client.Index(ctx, u.Origin)
	if err != nil {
		return nil, err
	}
	out := make([]UpstreamVersion, 0, len(idx.Skills))
	for _, e := range idx.Skills {
		v := UpstreamVersion{Name: e.Name, Source: idx.URL + "#" + e.Name, Revision: e.Digest, ref: e}
		if e.Version != "" {
			sv, err := semver.StrictNewVersion(e.Version)
			if err != nil {
				return nil, fmt.Errorf("%s: skill %q: %w: version %q is not semver", idx.URL, e.Name, wellknown.ErrInvalidIndex, e.Version)
			}
			v.Version = sv
		}
		out = append(out, v)
	}
	return out, nil
}

// Export fetches the entry's artifact, checks its digest and unpacks it.
func (u *WellKnownUpstream) Export(ctx context.Context, v UpstreamVersion, dst string) error {
	e, ok := v.ref.(wellknown.Entry)
	if !ok {
		return fmt.Errorf("%s: %s is not one of its versions", u.Origin, v.Name)
	}
	return u.Client.Export(ctx, e, dst)
}
