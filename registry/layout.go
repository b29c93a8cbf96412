package registry

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/skill"
)

// Format says how an artifact holds its skill.
type Format string

// Formats skillpm reads.
const (
	// FormatAgentSkills is the Agent Skills OCI artifact skillpm writes.
	FormatAgentSkills Format = "agent-skills"
	// FormatArchive is one tar(+gzip) layer holding the skill folder:
	// "oras push" of a folder or a tarball, and other skill tools.
	FormatArchive Format = "archive"
	// FormatFiles is one layer per file, named by its title annotation:
	// "oras push REF SKILL.md scripts/x.py".
	FormatFiles Format = "files"
)

// Media types of manifests skillpm reads besides OCI's.
const (
	mediaTypeDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaTypeDockerList     = "application/vnd.docker.distribution.manifest.list.v2+json"
)

// Layout is what a manifest was recognised as: which of its blobs hold
// the skill.
type Layout struct {
	Format       Format
	Manifest     ocispec.Descriptor // the image manifest, after any index
	ArtifactType string
	Annotations  map[string]string
	Config       ocispec.Descriptor
	// Layers hold the skill: one archive, or the files of FormatFiles.
	Layers []ocispec.Descriptor
	// Note is empty for the Agent Skills format and otherwise one line
	// saying what was recognised, for a warning.
	Note string
}

// SkillConfig reports whether Config is an Agent Skills config blob.
func (l *Layout) SkillConfig() bool { return l.Config.MediaType == MediaTypeConfig }

// manifestOrIndex is the union of an image manifest and an index, to
// tell them apart when a manifest omits its mediaType.
type manifestOrIndex struct {
	SchemaVersion int                  `json:"schemaVersion"`
	MediaType     string               `json:"mediaType"`
	ArtifactType  string               `json:"artifactType"`
	Config        *ocispec.Descriptor  `json:"config"`
	Layers        []ocispec.Descriptor `json:"layers"`
	Manifests     []ocispec.Descriptor `json:"manifests"`
	Annotations   map[string]string    `json:"annotations"`
}

// decodeManifest decodes data, served as mediaType, into an image
// manifest or an index.
func decodeManifest(data []byte, mediaType string) (*manifestOrIndex, bool, error) {
	var m manifestOrIndex
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, false, fmt.Errorf("%w: manifest is not JSON: %v", ErrNotSkill, err)
	}
	if m.SchemaVersion != 2 {
		return nil, false, fmt.Errorf("%w: manifest schemaVersion %d, want 2", ErrNotSkill, m.SchemaVersion)
	}
	if m.MediaType != "" && mediaType != "" && m.MediaType != mediaType && !(isIndexType(m.MediaType) && isIndexType(mediaType)) && !(isManifestType(m.MediaType) && isManifestType(mediaType)) {
		return nil, false, fmt.Errorf("%w: manifest says it is %s but was served as %s", ErrNotSkill, m.MediaType, mediaType)
	}
	kind := m.MediaType
	if kind == "" {
		kind = mediaType
	}
	switch {
	case isIndexType(kind) || (kind == "" && m.Manifests != nil && m.Layers == nil):
		return &m, true, nil
	case isManifestType(kind) || (kind == "" && m.Config != nil):
		if m.Config == nil {
			return nil, false, fmt.Errorf("%w: image manifest has no config", ErrNotSkill)
		}
		return &m, false, nil
	}
	return nil, false, fmt.Errorf("%w: unsupported manifest media type %q", ErrNotSkill, kind)
}

func isManifestType(t string) bool {
	return t == ocispec.MediaTypeImageManifest || t == mediaTypeDockerManifest
}

func isIndexType(t string) bool { return t == ocispec.MediaTypeImageIndex || t == mediaTypeDockerList }

// pickFromIndex chooses the manifest of an index that holds a skill:
// the one with the Agent Skills artifactType, or the only one.
func pickFromIndex(idx *manifestOrIndex) (ocispec.Descriptor, error) {
	if idx.ArtifactType == ArtifactTypeCollection {
		return ocispec.Descriptor{}, fmt.Errorf("%w: this is a collection of %d skills, not one skill: add them with 'skillpm add REF'", ErrNotSkill, len(idx.Manifests))
	}
	var skills []ocispec.Descriptor
	for _, d := range idx.Manifests {
		if d.ArtifactType == ArtifactType || d.Annotations[AnnotationSkillName] != "" {
			skills = append(skills, d)
		}
	}
	switch {
	case len(skills) == 1:
		return skills[0], nil
	case len(skills) == 0 && len(idx.Manifests) == 1:
		return idx.Manifests[0], nil
	}
	if d, ok := pickPlatform(idx); ok && len(skills) == 0 {
		return d, nil
	}
	return ocispec.Descriptor{}, fmt.Errorf("%w: image index lists %d manifests and none is the one skill", ErrNotSkill, len(idx.Manifests))
}

// recognise finds the skill in an image manifest.
func recognise(desc ocispec.Descriptor, m *manifestOrIndex) (Layout, error) {
	if l, ok := recogniseToolHive(desc, m); ok {
		return l, nil
	}
	l := Layout{Manifest: desc, ArtifactType: m.ArtifactType, Annotations: m.Annotations, Config: *m.Config}
	var content, archives, titled []ocispec.Descriptor
	for _, d := range m.Layers {
		switch {
		case d.MediaType == MediaTypeContent:
			content = append(content, d)
		case isArchive(d):
			archives = append(archives, d)
		case d.Annotations[ocispec.AnnotationTitle] != "":
			titled = append(titled, d)
		}
	}
	skillish := m.ArtifactType == ArtifactType || m.Config.MediaType == MediaTypeConfig
	switch {
	case len(content) == 1 && skillish && len(m.Layers) == 1:
		l.Format, l.Layers = FormatAgentSkills, content
		return l, nil
	case len(content) == 1 && skillish:
		l.Format, l.Layers = FormatAgentSkills, content
		l.Note = fmt.Sprintf("Agent Skills artifact with %d extra layers (ignored)", len(m.Layers)-1)
		return l, nil
	case len(content) > 1:
		return l, fmt.Errorf("%w: %d content layers; the Agent Skills format has one", ErrNotSkill, len(content))
	case skillish && len(content) == 0:
		return l, fmt.Errorf("%w: Agent Skills artifact without a %s layer", ErrNotSkill, MediaTypeContent)
	case len(content)+len(archives) == 1:
		l.Format, l.Layers = FormatArchive, append(content, archives...)
		l.Note = fmt.Sprintf("not an Agent Skills artifact: read its one %s layer (%s) as the skill folder", l.Layers[0].MediaType, describeType(m))
		return l, nil
	case len(archives) > 1:
		return l, fmt.Errorf("%w: %d archive layers; cannot tell which holds the skill", ErrNotSkill, len(archives))
	case len(titled) > 0 && len(titled) == len(m.Layers) && hasSkillFile(titled):
		l.Format, l.Layers = FormatFiles, titled
		l.Note = fmt.Sprintf("not an Agent Skills artifact: read %d files pushed one layer each (%s)", len(titled), describeType(m))
		return l, nil
	}
	types := make([]string, 0, len(m.Layers))
	for _, d := range m.Layers {
		types = append(types, d.MediaType)
	}
	return l, fmt.Errorf("%w: no layer holds a skill folder (%s; layers: %s)", ErrNotSkill, describeType(m), strings.Join(types, ", "))
}

func describeType(m *manifestOrIndex) string {
	switch {
	case m.ArtifactType != "":
		return "artifactType " + m.ArtifactType
	case m.Config != nil:
		return "config " + m.Config.MediaType
	}
	return "no artifactType"
}

// isArchive reports whether d is a tar or tar+gzip layer. A layer named
// by a title annotation is a file ("oras push REF SKILL.md" labels files
// ...layer.v1.tar whatever they hold) unless the title is a tarball's or
// oras marked it as a packed folder.
func isArchive(d ocispec.Descriptor) bool {
	if d.Annotations[AnnotationORASUnpack] == "true" {
		return true
	}
	if title := d.Annotations[ocispec.AnnotationTitle]; title != "" {
		for _, ext := range []string{".tar.gz", ".tgz", ".tar"} {
			if strings.HasSuffix(title, ext) {
				return true
			}
		}
		return false
	}
	switch t := d.MediaType; t {
	case "application/gzip", "application/x-gzip", "application/x-tar", "application/tar", "application/x-compressed-tar":
		return true
	default:
		for _, suffix := range []string{"tar+gzip", "tar.gzip", ".tar", "+tar", "tar.gz"} {
			if strings.HasSuffix(t, suffix) {
				return true
			}
		}
	}
	return false
}

func hasSkillFile(files []ocispec.Descriptor) bool {
	for _, d := range files {
		if path.Base(d.Annotations[ocispec.AnnotationTitle]) == skill.FileName {
			return true
		}
	}
	return false
}
