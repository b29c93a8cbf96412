// Package bundle carries a project's locked skills across an air gap:
// Export copies the whole closure of a skills.lock (every manifest by
// digest, its blobs and its signature and provenance referrers) into one
// OCI image layout folder or a tarball of it, and Source installs from
// it with no network, checking every digest against the lock.
//
// A bundle is a plain OCI layout that oras, skopeo and crane read: one
// index.json whose entries are tagged "NAME@VERSION"
// (org.opencontainers.image.ref.name) and carry the locked repository in
// the "io.skillpm.bundle.repository" annotation.
package bundle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/oci"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
)

// AnnotationRepository records, on a bundle's index entry, the
// repository the lock names for the skill.
const AnnotationRepository = "io.skillpm.bundle.repository"

// ExportOptions configure Export.
type ExportOptions struct {
	// Abs turns a lock repository into one the client can open (relative
	// oci: paths against the project folder). nil leaves it as is.
	Abs func(repo string) string
	// Concurrency bounds parallel transfers per skill. If less than or
	// equal to 0, the client's is used.
	Concurrency int
}

// Exported says what Export wrote.
type Exported struct {
	Path   string          `json:"path"`
	Skills []ExportedSkill `json:"skills"`
	// Blobs and Bytes count every blob and manifest in the bundle.
	Blobs int   `json:"blobs"`
	Bytes int64 `json:"bytes"`
}

// ExportedSkill is one locked skill in a bundle.
type ExportedSkill struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	Repository string `json:"repository"`
	Manifest   string `json:"manifest"`
	Referrers  int    `json:"referrers"`
}

// IsTarball reports whether path names a bundle tarball rather than a
// layout folder: it ends in .tar.
func IsTarball(path string) bool { return strings.HasSuffix(strings.ToLower(path), ".tar") }

// Export writes every skill of lock, with its referrers, into the OCI
// layout folder out, or into the tarball out when it ends in ".tar".
// Skills are read through client (and its mirrors) by their locked
// digests; a registry that serves other bytes fails with
// registry.ErrIntegrity. A tarball is written to a temporary file and
// renamed into place, so a failed export leaves no partial tarball.
func Export(ctx context.Context, client *registry.Client, lock *lockfile.File, out string, opts ExportOptions) (*Exported, error) {
	dir := out
	if IsTarball(out) {
		tmp, err := os.MkdirTemp(filepath.Dir(out), ".skillpm-bundle-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	store, err := oci.NewWithContext(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("bundle %s: %w", out, err)
	}
	res := &Exported{Path: out, Skills: []ExportedSkill{}}
	for _, s := range lock.Skills {
		es, err := exportSkill(ctx, client, store, s, opts)
		if err != nil {
			return nil, fmt.Errorf("bundle %s %s: %w", s.Name, s.Version, err)
		}
		res.Skills = append(res.Skills, es)
	}
	if res.Blobs, res.Bytes, err = countBlobs(dir); err != nil {
		return nil, err
	}
	if IsTarball(out) {
		if err := writeTar(dir, out); err != nil {
			return nil, fmt.Errorf("bundle %s: %w", out, err)
		}
	}
	return res, nil
}

// exportSkill copies one locked manifest and its referrers into store
// and tags it NAME@VERSION.
func exportSkill(ctx context.Context, client *registry.Client, store *oci.Store, s lockfile.Skill, opts ExportOptions) (ExportedSkill, error) {
	es := ExportedSkill{Name: s.Name, Version: s.Version, Repository: s.Repository, Manifest: s.Manifest}
	repo := s.Repository
	if opts.Abs != nil {
		repo = opts.Abs(repo)
	}
	d, err := digest.Parse(s.Manifest)
	if err != nil {
		return es, fmt.Errorf("locked manifest %q: %w", s.Manifest, err)
	}
	ref, err := registry.ParseReference(repo)
	if err != nil {
		return es, err
	}
	ref = ref.WithDigest(d)
	// Resolve checks the manifest's digest and reads the config; the
	// content layer must be the locked one.
	rs, err := client.Resolve(ctx, ref)
	if err != nil {
		return es, err
	}
	if s.Content != "" && (len(rs.Layout.Layers) == 0 || rs.Layout.Layers[0].Digest.String() != s.Content) {
		return es, fmt.Errorf("%w: manifest %s has another content layer than the locked %s", registry.ErrIntegrity, s.Manifest, s.Content)
	}
	src, err := client.Source(ctx, ref)
	if err != nil {
		return es, err
	}
	desc, err := src.Resolve(ctx, d.String())
	if err != nil {
		return es, registry.Classify(err)
	}
	if desc.Digest != d {
		return es, fmt.Errorf("%w: the registry serves %s for %s", registry.ErrIntegrity, desc.Digest, d)
	}
	preds, err := src.Predecessors(ctx, desc)
	if err != nil && !errors.Is(registry.Classify(err), registry.ErrNotFound) {
		return es, fmt.Errorf("list referrers: %w", registry.Classify(err))
	}
	roots := keepReferrers(preds, maxReferrers)
	es.Referrers = len(roots)
	copts := oras.ExtendedCopyGraphOptions{CopyGraphOptions: oras.CopyGraphOptions{Concurrency: opts.Concurrency}, FindPredecessors: boundedReferrers(src, desc, roots)}
	if copts.Concurrency <= 0 {
		copts.Concurrency = client.Concurrency()
	}
	if err := oras.ExtendedCopyGraph(ctx, src, store, desc, copts); err != nil {
		return es, fmt.Errorf("copy %s: %w", d, registry.Classify(err))
	}
	tagged := desc
	tagged.Annotations = map[string]string{AnnotationRepository: s.Repository}
	if err := store.Tag(ctx, tagged, Tag(s.Name, s.Version)); err != nil {
		return es, err
	}
	return es, nil
}

// maxReferrers bounds the referrers of a skill that a bundle copies,
// and, separately, the referrers of those referrers (all deeper levels
// together), as sync bounds what it mirrors. A skill has a few (a
// signature, provenance); a registry answering the referrers of every
// manifest with one more would otherwise keep the export walking for
// ever, and one listing thousands would fill the bundle.
const maxReferrers = 64

// keepReferrers returns at most limit of refs: sigstore bundles (what
// verify reads) first, then the others, each in the order listed.
func keepReferrers(refs []ocispec.Descriptor, limit int) []ocispec.Descriptor {
	var kept, others []ocispec.Descriptor
	for _, d := range refs {
		if d.ArtifactType == verify.BundleMediaType {
			kept = append(kept, d)
		} else {
			others = append(others, d)
		}
	}
	kept = append(kept, others...)
	return kept[:min(len(kept), limit)]
}

// boundedReferrers finds the predecessors oras-go's extended copy walks:
// roots for the skill's manifest desc, and for the nodes above it the
// referrers src lists, each digest once and at most maxReferrers of
// them in all.
func boundedReferrers(src registry.Target, desc ocispec.Descriptor, roots []ocispec.Descriptor) func(context.Context, content.ReadOnlyGraphStorage, ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	budget := maxReferrers
	seen := map[digest.Digest]bool{desc.Digest: true}
	for _, r := range roots {
		seen[r.Digest] = true
	}
	// oras-go walks the referrers from one goroutine, before copying.
	return func(ctx context.Context, _ content.ReadOnlyGraphStorage, d ocispec.Descriptor) ([]ocispec.Descriptor, error) {
		if d.Digest == desc.Digest {
			return roots, nil
		}
		preds, err := src.Predecessors(ctx, d)
		if err != nil {
			if errors.Is(registry.Classify(err), registry.ErrNotFound) {
				return nil, nil
			}
			return nil, err
		}
		var fresh []ocispec.Descriptor
		for _, p := range preds {
			if !seen[p.Digest] {
				seen[p.Digest] = true
				fresh = append(fresh, p)
			}
		}
		fresh = keepReferrers(fresh, budget)
		budget -= len(fresh)
		return fresh, nil
	}
}

// Tag is the name a bundle gives a skill version: "NAME@VERSION".
func Tag(name, version string) string { return name + "@" + version }

// countBlobs counts the files under dir/blobs.
func countBlobs(dir string) (int, int64, error) {
	n, size := 0, int64(0)
	err := filepath.WalkDir(filepath.Join(dir, ocispec.ImageBlobsDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		n++
		size += fi.Size()
		return nil
	})
	return n, size, err
}
