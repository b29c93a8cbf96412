package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/Masterminds/semver/v3"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/content/memory"
	"oras.land/oras-go/v2/errdef"

	"github.com/skillpm/skillpm/skill"
)

// Media types and annotations of the draft "Agent Skills OCI Artifacts"
// spec (v0.1.0).
const (
	// ArtifactType is the manifest artifactType of a skill.
	ArtifactType = "application/vnd.agentskills.skill.v1"
	// MediaTypeConfig is the media type of a skill's config blob.
	MediaTypeConfig = "application/vnd.agentskills.skill.config.v1+json"
	// MediaTypeContent is the media type of a skill's one content layer.
	MediaTypeContent = "application/vnd.agentskills.skill.content.v1.tar+gzip"
	// AnnotationSkillName carries the skill's name on the manifest.
	AnnotationSkillName = "io.agentskills.skill.name"
	// ConfigSchemaVersion is the schemaVersion skillpm writes in configs.
	ConfigSchemaVersion = "0.1.0"
)

// Config is a skill's config blob: the Agent Skills fields, then
// skillpm's own (depends_on, tools, permissions), which other readers
// ignore. It is small, so resolving and indexing never download content.
type Config struct {
	SchemaVersion string         `json:"schemaVersion"`
	Name          string         `json:"name"`
	Version       string         `json:"version,omitempty"`
	Description   string         `json:"description,omitempty"`
	License       string         `json:"license,omitempty"`
	Compatibility string         `json:"compatibility,omitempty"`
	AllowedTools  []string       `json:"allowedTools,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`

	DependsOn   []skill.Dependency `json:"depends_on,omitempty"`
	Tools       []skill.Tool       `json:"tools,omitempty"`
	Permissions *skill.Permissions `json:"permissions,omitempty"`
	// Tags are the Universal tags, for search.
	Tags []string `json:"tags,omitempty"`
}

// ConfigFromSkill builds the config of s at version.
func ConfigFromSkill(s *skill.Skill, version string) Config {
	fm := s.Frontmatter
	return Config{
		SchemaVersion: ConfigSchemaVersion,
		Name:          fm.Name,
		Version:       version,
		Description:   fm.Description,
		License:       fm.License,
		Compatibility: fm.Compatibility,
		AllowedTools:  fm.AllowedTools,
		Metadata:      fm.Metadata,
		DependsOn:     s.Dependencies,
		Tools:         s.Tools,
		Permissions:   fm.Permissions,
		Tags:          fm.Tags,
	}
}

// PackOptions control Pack. The zero value packs the version in the
// frontmatter with a created time of DefaultCreated.
type PackOptions struct {
	// Version overrides the frontmatter version. It must be strict
	// semver when set.
	Version string
	// Created is the org.opencontainers.image.created annotation. Zero
	// means DefaultCreated, so packing is reproducible.
	Created time.Time
	// Source and Revision fill org.opencontainers.image.source and
	// .revision when set.
	Source, Revision string
	// Annotations are added to the manifest's (and win over skillpm's).
	Annotations map[string]string
	// Ignore lists paths relative to the folder to leave out.
	Ignore []string
	// TempDir holds the spooled layer; "" means os.TempDir().
	TempDir string
	// Limits are the ones installers unpack with (Options.Limits, from
	// the user config's limits:); zero fields take the defaults. A
	// folder over them is refused with a *skill.Error, since no pull
	// or install under those limits could unpack it.
	Limits Limits
}

// Package is a packed skill, ready to push: the manifest and config in
// memory and the content layer spooled to a temporary file. Close
// removes the file.
type Package struct {
	Name    string
	Version string // "" when neither the frontmatter nor PackOptions set one
	Config  Config
	Stats   LayerStats

	Manifest     ocispec.Descriptor // digest of ManifestJSON
	ManifestJSON []byte
	ConfigDesc   ocispec.Descriptor
	ConfigJSON   []byte
	Layer        ocispec.Descriptor

	layerPath string
}

// Pack reads the skill folder dir and packs it as an Agent Skills
// artifact. Packing the same folder gives the same manifest digest on
// every run and machine.
func Pack(ctx context.Context, dir string, opts PackOptions) (*Package, error) {
	s, err := skill.Load(dir)
	if err != nil {
		return nil, err
	}
	name := s.Name()
	if !skill.ValidName(name) {
		return nil, fmt.Errorf("pack %s: %w (got %q); fix the name field", dir, errNoName, name)
	}
	version := opts.Version
	if version == "" {
		version = s.Frontmatter.Version
	}
	if version != "" {
		if _, err := semver.StrictNewVersion(version); err != nil {
			return nil, fmt.Errorf("pack %s: version %q is not semver (MAJOR.MINOR.PATCH)", dir, version)
		}
	}
	layerPath, st, err := spoolLayer(ctx, dir, name, opts.TempDir, opts.Limits, opts.Ignore)
	if err != nil {
		return nil, err
	}
	p := &Package{Name: name, Version: version, Config: ConfigFromSkill(s, version), Stats: st, Layer: layerDescriptor(name, st), layerPath: layerPath}
	if p.ConfigJSON, err = json.Marshal(p.Config); err != nil {
		p.Close()
		return nil, err
	}
	p.ConfigDesc = content.NewDescriptorFromBytes(MediaTypeConfig, p.ConfigJSON)
	if err := p.packManifest(ctx, opts); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func (p *Package) packManifest(ctx context.Context, opts PackOptions) error {
	created := opts.Created
	if created.IsZero() {
		created = DefaultCreated
	}
	ann := map[string]string{
		ocispec.AnnotationTitle:   p.Name,
		ocispec.AnnotationCreated: created.UTC().Format(time.RFC3339),
		AnnotationSkillName:       p.Name,
	}
	set := func(k, v string) {
		if v != "" {
			ann[k] = v
		}
	}
	set(ocispec.AnnotationVersion, p.Version)
	set(ocispec.AnnotationDescription, p.Config.Description)
	set(ocispec.AnnotationLicenses, p.Config.License)
	set(ocispec.AnnotationSource, opts.Source)
	set(ocispec.AnnotationRevision, opts.Revision)
	for k, v := range opts.Annotations {
		ann[k] = v
	}
	mem := memory.New()
	desc, err := oras.PackManifest(ctx, mem, oras.PackManifestVersion1_1, ArtifactType, oras.PackManifestOptions{
		Layers:              []ocispec.Descriptor{p.Layer},
		ConfigDescriptor:    &p.ConfigDesc,
		ManifestAnnotations: ann,
	})
	if err != nil {
		return fmt.Errorf("pack manifest: %w", err)
	}
	p.ManifestJSON, err = content.FetchAll(ctx, mem, desc)
	if err != nil {
		return err
	}
	// Keep only what identifies the manifest; annotations live inside it.
	p.Manifest = ocispec.Descriptor{MediaType: desc.MediaType, ArtifactType: desc.ArtifactType, Digest: desc.Digest, Size: desc.Size}
	return nil
}

// OpenLayer opens the spooled content layer.
func (p *Package) OpenLayer() (io.ReadCloser, error) { return os.Open(p.layerPath) }

// Close removes the spooled layer.
func (p *Package) Close() error {
	if p.layerPath == "" {
		return nil
	}
	err := os.Remove(p.layerPath)
	p.layerPath = ""
	return err
}

// pushPackage pushes p's blobs and manifest into dst, skipping blobs that
// are already there, and tags the manifest when tag is not empty.
func pushPackage(ctx context.Context, dst oras.Target, p *Package, tag string) error {
	push := func(desc ocispec.Descriptor, open func() (io.ReadCloser, error)) error {
		ok, err := dst.Exists(ctx, desc)
		if err != nil {
			return classify(err)
		}
		if ok {
			return nil
		}
		r, err := open()
		if err != nil {
			return err
		}
		defer r.Close()
		if err := dst.Push(ctx, desc, r); err != nil && !isAlreadyExists(err) {
			return classify(fmt.Errorf("push %s: %w", desc.Digest, err))
		}
		return nil
	}
	if err := push(p.Layer, p.OpenLayer); err != nil {
		return err
	}
	if err := push(p.ConfigDesc, bytesOpener(p.ConfigJSON)); err != nil {
		return err
	}
	return pushManifest(ctx, dst, p.Manifest, p.ManifestJSON, tag)
}

func bytesOpener(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
}

// referencePusher is implemented by remote repositories, which push and
// tag a manifest in one request.
type referencePusher interface {
	PushReference(ctx context.Context, expected ocispec.Descriptor, content io.Reader, reference string) error
}

func pushManifest(ctx context.Context, dst oras.Target, desc ocispec.Descriptor, data []byte, tag string) error {
	if rp, ok := dst.(referencePusher); ok && tag != "" {
		return classify(rp.PushReference(ctx, desc, bytes.NewReader(data), tag))
	}
	if err := dst.Push(ctx, desc, bytes.NewReader(data)); err != nil && !isAlreadyExists(err) {
		return classify(err)
	}
	if tag == "" {
		return nil
	}
	return classify(dst.Tag(ctx, desc, tag))
}

func isAlreadyExists(err error) bool { return errors.Is(err, errdef.ErrAlreadyExists) }
