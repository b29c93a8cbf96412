package manager

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/resolve"
)

// MetaCache keeps release metadata between runs (the index), so that a
// warm cache resolves without a network. Every method is best effort.
type MetaCache interface {
	// Versions returns the versions last listed for repo.
	Versions(repo string) ([]string, bool)
	// PutVersions records the versions listed for repo.
	PutVersions(repo string, versions []string)
	// Release returns what Describe learnt of repo at tag.
	Release(repo, tag string) ([]byte, bool)
	// ReleaseByDigest returns the release metadata recorded for a
	// manifest digest (immutable, unlike tags).
	ReleaseByDigest(digest string) ([]byte, bool)
	// PutRelease records that tag of repo is the manifest digest, with
	// its release metadata (opaque JSON).
	PutRelease(repo, tag, digest string, data []byte)
}

// RegistrySource is the Registry of a real registry client, with an
// optional metadata cache.
type RegistrySource struct {
	Client *registry.Client
	// Cache, when set, answers Describe without a request and Versions
	// when the registry is unreachable.
	Cache MetaCache

	// read holds the manifests Manifest read (checked against their
	// digests), by repository and digest, until Materialize of the same
	// pin takes them: an install reads every pinned manifest to check
	// the lock, then materialises the same pins, and the second read
	// (the cache's manifest and config, opened, read and hashed again)
	// would only repeat the first.
	read sync.Map // pinKey -> *registry.Resolved
}

func pinKey(repo string, d digest.Digest) string { return repo + "@" + d.String() }

var _ Registry = (*RegistrySource)(nil)

// Versions lists repo's semver tags. When the registry cannot be reached,
// the versions last listed are used.
func (r *RegistrySource) Versions(ctx context.Context, repo string) ([]*semver.Version, error) {
	ref, err := registry.ParseReference(repo)
	if err != nil {
		return nil, err
	}
	vs, err := r.Client.Versions(ctx, ref)
	if err != nil {
		if errors.Is(err, registry.ErrNotFound) {
			return nil, fmt.Errorf("%w: %w", resolve.ErrNotFound, err)
		}
		if r.Cache != nil && errors.Is(err, registry.ErrNetwork) {
			if cached, ok := r.Cache.Versions(repo); ok {
				return parseVersions(cached), nil
			}
		}
		return nil, err
	}
	if r.Cache != nil {
		var s []string
		for _, v := range vs {
			s = append(s, v.Original())
		}
		r.Cache.PutVersions(repo, s)
	}
	return vs, nil
}

func parseVersions(s []string) []*semver.Version {
	var out []*semver.Version
	for _, v := range s {
		if sv, err := semver.StrictNewVersion(v); err == nil {
			out = append(out, sv)
		}
	}
	return out
}

// Describe reads the manifest and config of repo at version. The tag is
// asked for its digest every time (tags can be moved with publish
// --force); the metadata of a digest comes from the cache when it has it.
// When the registry cannot be reached, the tag's last known release is
// used.
func (r *RegistrySource) Describe(ctx context.Context, repo, version string) (*Release, error) {
	ref, err := registry.ParseReference(repo)
	if err != nil {
		return nil, err
	}
	tag := ociref.EscapeTag(version)
	desc, err := r.Client.Head(ctx, ref.WithTag(tag))
	if err != nil {
		if r.Cache != nil && errors.Is(err, registry.ErrNetwork) {
			if rel, ok := decodeRelease(r.Cache.Release(repo, tag)); ok {
				return rel, nil
			}
		}
		return nil, err
	}
	if r.Cache != nil {
		if rel, ok := decodeRelease(r.Cache.ReleaseByDigest(desc.Digest.String())); ok && rel.Repository == repo && rel.Version == version {
			return rel, nil
		}
	}
	res, err := r.Client.Resolve(ctx, ref.WithDigest(desc.Digest))
	if err != nil {
		return nil, err
	}
	rel := ReleaseOf(repo, res)
	rel.Version = version
	if r.Cache != nil {
		if data, err := json.Marshal(rel); err == nil {
			r.Cache.PutRelease(repo, tag, rel.Manifest, data)
		}
	}
	return rel, nil
}

// ReleaseOf is what a manifest resolved from repo states in its config
// (and annotations): name, version, content layer and depends_on.
func ReleaseOf(repo string, res *registry.Resolved) *Release {
	rel := &Release{Repository: repo, Name: res.Name(), Version: res.Version(), Manifest: res.Ref.Digest.String()}
	if len(res.Layout.Layers) > 0 {
		rel.Content = res.Layout.Layers[0].Digest.String()
	}
	if res.Config != nil {
		for _, d := range res.Config.DependsOn {
			rel.DependsOn = append(rel.DependsOn, d.String())
		}
	}
	return rel
}

// Manifest reads the manifest d of repo by digest (the client checks
// the bytes against it; a cached copy is used) and returns what its
// config states.
func (r *RegistrySource) Manifest(ctx context.Context, repo, d string) (*Release, error) {
	ref, err := registry.ParseReference(repo)
	if err != nil {
		return nil, err
	}
	dg, err := parseDigest(d)
	if err != nil {
		return nil, fmt.Errorf("manifest %q: %w", d, err)
	}
	res, err := r.Client.Resolve(ctx, ref.WithDigest(dg))
	if err != nil {
		return nil, err
	}
	r.read.Store(pinKey(repo, dg), res)
	return ReleaseOf(repo, res), nil
}

func decodeRelease(data []byte, ok bool) (*Release, bool) {
	if !ok {
		return nil, false
	}
	var rel Release
	if json.Unmarshal(data, &rel) != nil || rel.Manifest == "" {
		return nil, false
	}
	return &rel, true
}

// Materialize pulls the locked manifest digest into dir and checks that
// its content layer is the locked one.
func (r *RegistrySource) Materialize(ctx context.Context, s lockfile.Skill, dir string) error {
	ref, err := registry.ParseReference(s.Repository)
	if err != nil {
		return err
	}
	d, err := parseDigest(s.Manifest)
	if err != nil {
		return fmt.Errorf("%s: locked manifest %q: %w", s.Name, s.Manifest, err)
	}
	var res *registry.Resolved
	if v, ok := r.read.LoadAndDelete(pinKey(s.Repository, d)); ok {
		res = v.(*registry.Resolved)
	} else if res, err = r.Client.Resolve(ctx, ref.WithDigest(d)); err != nil {
		return err
	}
	if n := res.Name(); n != "" && n != s.Name {
		return fmt.Errorf("%s %s: the locked manifest %s holds the skill %q: %w", s.Name, s.Version, s.Manifest, n, registry.ErrIntegrity)
	}
	if s.Content != "" && (len(res.Layout.Layers) == 0 || res.Layout.Layers[0].Digest.String() != s.Content) {
		return fmt.Errorf("%s %s: the registry's manifest %s has another content layer than the locked %s: %w", s.Name, s.Version, s.Manifest, s.Content, registry.ErrIntegrity)
	}
	_, err = r.Client.Extract(ctx, res, dir, registry.PullOptions{})
	return err
}

func parseDigest(s string) (digest.Digest, error) {
	d, err := digest.Parse(s)
	if err != nil {
		return "", err
	}
	return d, nil
}
