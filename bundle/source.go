package bundle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	"oras.land/oras-go/v2/content/oci"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/registry"
)

// ErrOffline is returned when installing from a bundle would need to
// resolve: a bundle holds exactly its lock's closure.
var ErrOffline = errors.New("a bundle installs skills.lock as is and cannot resolve")

// Source installs locked skills from a bundle: a manager.Registry that
// never touches a network.
type Source struct {
	// Client reads the bundle's layout; it checks every digest.
	Client *registry.Client
	// Dir is the bundle's layout folder.
	Dir string

	cleanup string
}

var _ manager.Registry = (*Source)(nil)

// Open opens the bundle at path, a layout folder or a tarball (unpacked
// into a temporary folder under tmp, "" meaning os.TempDir()). Close
// removes what Open unpacked.
func Open(client *registry.Client, path, tmp string) (*Source, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", path, registry.ErrNotFound)
	}
	s := &Source{Client: client, Dir: path}
	if fi.IsDir() {
		// The folder the name leads to is what is read, and checked.
		if s.Dir, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("bundle %s: %w", path, err)
		}
		// As extractTar checks a tarball, before anything reads it:
		// folders and regular files only (a blob that is a FIFO would
		// hang the install, a link leads out of the bundle), no more
		// entries than a tarball may hold. The client does not walk the
		// folder again when it reads it.
		if err := client.CheckLayout(s.Dir, defaultTarLimits().entries); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadBundle, err)
		}
	} else {
		dir, err := os.MkdirTemp(tmp, "skillpm-bundle-")
		if err != nil {
			return nil, err
		}
		s.Dir, s.cleanup = dir, dir
		if err := extractTar(path, dir, defaultTarLimits()); err != nil {
			s.Close()
			return nil, err
		}
	}
	if _, err := os.Stat(filepath.Join(s.Dir, "oci-layout")); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w: %s has no oci-layout file (make one with 'skillpm bundle -o %s')", ErrBadBundle, path, path)
	}
	// The layout reader loads index.json whole: bound it first, as a
	// tarball's is bounded when it is unpacked.
	if fi, err := os.Lstat(filepath.Join(s.Dir, "index.json")); err != nil || !fi.Mode().IsRegular() || fi.Size() > defaultTarLimits().index {
		s.Close()
		if err == nil && fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%w: %s: index.json is %d bytes, over the %d byte limit", ErrBadBundle, path, fi.Size(), defaultTarLimits().index)
		}
		return nil, fmt.Errorf("%w: %s has no index.json file", ErrBadBundle, path)
	}
	// Reading the layout as the client will, once, checks that its index
	// tells the truth about the manifests it lists (their sizes and
	// digests); a lie is the bundle's fault, not a failure to retry.
	if _, err := oci.NewFromFS(context.Background(), os.DirFS(s.Dir)); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrBadBundle, path, err)
	}
	return s, nil
}

// Close removes the folder a tarball was unpacked into.
func (s *Source) Close() error {
	if s.cleanup == "" {
		return nil
	}
	return os.RemoveAll(s.cleanup)
}

// Versions fails with ErrOffline: a bundle installs its lock as is.
func (s *Source) Versions(_ context.Context, repo string) ([]*semver.Version, error) {
	return nil, fmt.Errorf("%s: %w", repo, ErrOffline)
}

// Describe fails with ErrOffline: a bundle installs its lock as is.
func (s *Source) Describe(_ context.Context, repo, version string) (*manager.Release, error) {
	return nil, fmt.Errorf("%s %s: %w", repo, version, ErrOffline)
}

// Manifest reads the manifest d from the bundle, by digest, and returns
// what its config states (manager.Registry). repo is the repository the
// project resolves the skill to; a bundle holds each digest once.
func (s *Source) Manifest(ctx context.Context, repo, d string) (*manager.Release, error) {
	dg, err := digest.Parse(d)
	if err != nil {
		return nil, fmt.Errorf("manifest %q: %w", d, err)
	}
	res, err := s.Client.Resolve(ctx, registry.Reference{Layout: s.Dir}.WithDigest(dg))
	if errors.Is(err, registry.ErrNotFound) {
		return nil, fmt.Errorf("%s@%s is not in the bundle; make the bundle again from this skills.lock: %w", repo, d, err)
	}
	if err != nil {
		return nil, err
	}
	rel := &manager.Release{Repository: repo, Name: res.Name(), Version: res.Version(), Manifest: res.Ref.Digest.String()}
	if len(res.Layout.Layers) > 0 {
		rel.Content = res.Layout.Layers[0].Digest.String()
	}
	if res.Config != nil {
		for _, dep := range res.Config.DependsOn {
			rel.DependsOn = append(rel.DependsOn, dep.String())
		}
	}
	return rel, nil
}

// Materialize writes the locked skill's files into dir from the bundle,
// by its locked manifest digest, and checks that its content layer is
// the locked one.
func (s *Source) Materialize(ctx context.Context, l lockfile.Skill, dir string) error {
	d, err := digest.Parse(l.Manifest)
	if err != nil {
		return fmt.Errorf("%s: locked manifest %q: %w", l.Name, l.Manifest, err)
	}
	ref := registry.Reference{Layout: s.Dir}.WithDigest(d)
	res, err := s.Client.Resolve(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("%s %s (%s) is not in the bundle; make the bundle again from this skills.lock: %w", l.Name, l.Version, l.Manifest, err)
	}
	if err != nil {
		return err
	}
	if l.Content != "" && (len(res.Layout.Layers) == 0 || res.Layout.Layers[0].Digest.String() != l.Content) {
		return fmt.Errorf("%s %s: the bundle's manifest %s has another content layer than the locked %s: %w", l.Name, l.Version, l.Manifest, l.Content, registry.ErrIntegrity)
	}
	_, err = s.Client.Extract(ctx, res, dir, registry.PullOptions{})
	return err
}
