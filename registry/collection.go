package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/skill"
)

// Collections: a named set of skills, published as one OCI image index
// of artifactType ArtifactTypeCollection with the annotation
// AnnotationCollectionName. Its manifests are the skills' own manifests,
// pinned by digest.
//
// An index can list only manifests of its own repository, so
// PublishCollection copies each skill's manifest (and its config and
// content layer, mounted from the skill's repository when both are on one
// registry, as oras-go copies) into the collection's repository, untagged.
// Each entry says where the skill is published through the annotations
// AnnotationSkillRepository (its repository), AnnotationSkillName and
// org.opencontainers.image.version: 'skillpm add' of a collection adds
// every skill from its own repository at that version, and refuses a
// version whose tag no longer holds the pinned manifest. The copies keep
// the collection readable (by digest, e.g. 'skillpm pull
// COLLECTION@sha256:…') and keep registries from collecting them away.
const (
	// ArtifactTypeCollection is the artifactType of a collection index.
	ArtifactTypeCollection = "application/vnd.agentskills.collection.v1"
	// AnnotationCollectionName names a collection, on its index.
	AnnotationCollectionName = "io.agentskills.collection.name"
	// AnnotationSkillRepository is, on a collection's entry, the
	// repository the skill is published in.
	AnnotationSkillRepository = "io.agentskills.skill.repository"
	// MaxCollectionSkills bounds the entries read from a collection.
	MaxCollectionSkills = 1000
)

// Member is one skill of a collection.
type Member struct {
	Name    string
	Version string
	// Repository is where the skill is published ("" when the entry
	// does not say): its repository without tag.
	Repository string
	// Manifest is the skill's manifest, pinned by the collection.
	Manifest ocispec.Descriptor
}

// Collection is a collection index as read or published.
type Collection struct {
	Name    string
	Ref     Reference // with Digest set to the index's
	Members []Member
}

// PublishCollection resolves every skill of skills, copies its manifest
// into ref's repository and pushes the collection index named name,
// tagged with ref's tag ("latest" when it has none). Two skills of one
// name are refused.
func (c *Client) PublishCollection(ctx context.Context, name string, ref Reference, skills []Reference) (*Collection, error) {
	if !skill.ValidName(name) {
		return nil, fmt.Errorf("collection name %q: use lowercase letters, digits and single hyphens", name)
	}
	if ref.Digest != "" || ref.Range != "" {
		return nil, fmt.Errorf("publish collection %s: give a repository and tag, not a digest or range", ref)
	}
	if len(skills) == 0 || len(skills) > MaxCollectionSkills {
		return nil, fmt.Errorf("publish collection %s: give between 1 and %d skills", ref, MaxCollectionSkills)
	}
	dst, err := c.Target(ctx, ref, true)
	if err != nil {
		return nil, err
	}
	col := &Collection{Name: name, Ref: ref}
	seen := map[string]string{}
	for _, sr := range skills {
		res, err := c.Resolve(ctx, sr)
		if err != nil {
			return nil, err
		}
		n, v := res.Name(), res.Version()
		if n == "" || v == "" {
			return nil, fmt.Errorf("%s: %w: the artifact names no skill name and version", sr, ErrNotSkill)
		}
		if prev, ok := seen[n]; ok {
			return nil, fmt.Errorf("publish collection %s: %s and %s both hold the skill %q", ref, prev, sr, n)
		}
		seen[n] = sr.String()
		src, err := c.Target(ctx, sr, false)
		if err != nil {
			return nil, err
		}
		m := res.Layout.Manifest
		desc := ocispec.Descriptor{MediaType: manifestType(m.MediaType), Digest: res.Ref.Digest, Size: int64(len(res.ManifestJSON))}
		opts := oras.CopyGraphOptions{Concurrency: c.opts.Concurrency}
		if !sr.IsLayout() && !ref.IsLayout() && sr.Registry == ref.Registry {
			from := sr.Repository
			opts.MountFrom = func(context.Context, ocispec.Descriptor) ([]string, error) { return []string{from}, nil }
		}
		if err := oras.CopyGraph(ctx, src, dst, desc, opts); err != nil {
			return nil, fmt.Errorf("copy %s into %s: %w", sr, ref.Repo(), classify(err))
		}
		desc.ArtifactType = res.Layout.ArtifactType
		desc.Annotations = map[string]string{AnnotationSkillName: n, ocispec.AnnotationVersion: v, AnnotationSkillRepository: sr.Repo()}
		col.Members = append(col.Members, Member{Name: n, Version: v, Repository: sr.Repo(), Manifest: desc})
	}
	sort.Slice(col.Members, func(i, j int) bool { return col.Members[i].Name < col.Members[j].Name })
	idx := ocispec.Index{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageIndex,
		ArtifactType: ArtifactTypeCollection,
		Annotations: map[string]string{
			AnnotationCollectionName:  name,
			ocispec.AnnotationTitle:   name,
			ocispec.AnnotationCreated: DefaultCreated.UTC().Format(time.RFC3339),
		},
	}
	for _, m := range col.Members {
		idx.Manifests = append(idx.Manifests, m.Manifest)
	}
	data, err := json.Marshal(idx)
	if err != nil {
		return nil, err
	}
	tag := ref.Tag
	if tag == "" {
		tag = "latest"
	}
	d := content.NewDescriptorFromBytes(ocispec.MediaTypeImageIndex, data)
	if err := pushManifest(ctx, dst, d, data, tag); err != nil {
		return nil, fmt.Errorf("push collection %s: %w", ref, err)
	}
	col.Ref = ref.WithTag(tag)
	col.Ref.Tag, col.Ref.Digest = tag, d.Digest
	return col, nil
}

func manifestType(t string) string {
	if t == "" {
		return ocispec.MediaTypeImageManifest
	}
	return t
}

// ReadCollection reads the index ref names. ok is false, with no error,
// when ref names something that is not a collection (a skill).
func (c *Client) ReadCollection(ctx context.Context, ref Reference) (col *Collection, ok bool, err error) {
	t, err := c.open(ctx, ref, false)
	if err != nil {
		return nil, false, err
	}
	name := ref.Tag
	switch {
	case ref.Digest != "":
		name = ref.Digest.String()
	case ref.Range != "":
		return nil, false, nil // a version range picks a skill's version
	case name == "":
		name = "latest"
	}
	desc, data, err := oras.FetchBytes(ctx, t, name, oras.FetchBytesOptions{MaxBytes: c.limits.MaxManifestSize})
	if err != nil {
		if errors.Is(classify(err), ErrNotFound) && ref.Tag == "" && ref.Digest == "" {
			return nil, false, nil // no "latest": a skill's versions decide
		}
		return nil, false, fmt.Errorf("read %s: %w", ref, classifyFetch(err, "manifest", c.limits.MaxManifestSize))
	}
	if ref.Digest != "" && desc.Digest != ref.Digest {
		return nil, false, fmt.Errorf("read %s: %w: manifest digest is %s", ref, ErrIntegrity, desc.Digest)
	}
	m, isIndex, err := decodeManifest(data, desc.MediaType)
	if err != nil || !isIndex || m.ArtifactType != ArtifactTypeCollection {
		return nil, false, nil
	}
	col, err = parseCollection(ref.WithDigest(desc.Digest), m)
	if err != nil {
		return nil, true, fmt.Errorf("read collection %s: %w", ref, err)
	}
	if ref.Tag != "" {
		col.Ref.Tag = ref.Tag
	}
	return col, true, nil
}

// parseCollection checks a collection's entries: each names a valid
// skill, a version, a repository and a well-formed manifest digest, and
// no name twice.
func parseCollection(ref Reference, m *manifestOrIndex) (*Collection, error) {
	col := &Collection{Name: m.Annotations[AnnotationCollectionName], Ref: ref}
	if len(m.Manifests) > MaxCollectionSkills {
		return nil, fmt.Errorf("%w: %d entries, more than %d", ErrNotSkill, len(m.Manifests), MaxCollectionSkills)
	}
	seen := map[string]bool{}
	for i, d := range m.Manifests {
		mb := Member{Name: d.Annotations[AnnotationSkillName], Version: d.Annotations[ocispec.AnnotationVersion], Repository: d.Annotations[AnnotationSkillRepository], Manifest: d}
		if !skill.ValidName(mb.Name) {
			return nil, fmt.Errorf("%w: entry %d names the skill %q, which is not a valid skill name", ErrNotSkill, i, mb.Name)
		}
		if seen[mb.Name] {
			return nil, fmt.Errorf("%w: the skill %q is listed twice", ErrNotSkill, mb.Name)
		}
		seen[mb.Name] = true
		if _, ok := ociref.VersionFromTag(ociref.EscapeTag(mb.Version)); !ok {
			return nil, fmt.Errorf("%w: entry %s has version %q, which is not semver", ErrNotSkill, mb.Name, mb.Version)
		}
		if err := d.Digest.Validate(); err != nil || d.Digest.Algorithm() != digest.SHA256 {
			return nil, fmt.Errorf("%w: entry %s has the digest %q", ErrNotSkill, mb.Name, d.Digest)
		}
		r, err := ParseReference(mb.Repository)
		if err == nil && r.IsLayout() && !ref.IsLayout() {
			// A registry's collection may not send the project to a
			// folder on this machine.
			return nil, fmt.Errorf("%w: entry %s names the repository %q, a local folder, in a collection read from a registry", ErrNotSkill, mb.Name, mb.Repository)
		}
		if err != nil || r.Tag != "" || r.Digest != "" || r.Range != "" || (r.Layout == "" && path.Base(r.Repository) != mb.Name) || (r.Layout != "" && path.Base(r.Layout) != mb.Name) {
			return nil, fmt.Errorf("%w: entry %s names the repository %q; want one whose last segment is the skill's name", ErrNotSkill, mb.Name, mb.Repository)
		}
		col.Members = append(col.Members, mb)
	}
	if !skill.ValidName(col.Name) {
		return nil, fmt.Errorf("%w: the collection's %s is %q", ErrNotSkill, AnnotationCollectionName, col.Name)
	}
	return col, nil
}

// CheckMember checks that m's repository still serves the pinned
// manifest as m's version (a tag may have been moved since).
func (c *Client) CheckMember(ctx context.Context, m Member) error {
	r, err := ParseReference(m.Repository)
	if err != nil {
		return err
	}
	res, err := c.Resolve(ctx, r.WithTag(m.Version))
	if err != nil {
		return fmt.Errorf("collection member %s: %w", m.Name, err)
	}
	if res.Ref.Digest != m.Manifest.Digest {
		return fmt.Errorf("collection member %s: %w: %s:%s now holds %s, the collection pins %s", m.Name, ErrIntegrity, m.Repository, m.Version, res.Ref.Digest, m.Manifest.Digest)
	}
	if n := res.Name(); n != m.Name {
		return fmt.Errorf("collection member %s: %w: %s holds the skill %q", m.Name, ErrIntegrity, m.Repository, n)
	}
	return nil
}
