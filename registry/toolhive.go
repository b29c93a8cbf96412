package registry

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/Masterminds/semver/v3"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/skill"
)

// ToolHive's skill artifacts, as "thv skill build" writes them
// (github.com/stacklok/toolhive-core, package oci/skills): an OCI image
// index of artifactType ToolHiveArtifactType with one image manifest per
// platform (linux/amd64 and linux/arm64 by default). Every manifest has
// the same artifactType, an ordinary OCI image config whose
// config.Labels carry the skill's metadata (the toolHiveLabel* keys,
// arrays as JSON strings), and one tar+gzip layer titled "skill.tar.gz"
// holding the skill's files at the top of the archive. The manifests
// differ only in the config's platform; their layer is the same blob.
const (
	// ToolHiveArtifactType is the artifactType of ToolHive's skill
	// indexes and manifests.
	ToolHiveArtifactType = "dev.toolhive.skills.v1"
	// FormatToolHive is a ToolHive skill artifact: the skill is its one
	// archive layer, its metadata the config's labels.
	FormatToolHive Format = "toolhive"

	toolHiveLabelName         = "dev.toolhive.skills.name"
	toolHiveLabelDescription  = "dev.toolhive.skills.description"
	toolHiveLabelVersion      = "dev.toolhive.skills.version"
	toolHiveLabelLicense      = "dev.toolhive.skills.license"
	toolHiveLabelAllowedTools = "dev.toolhive.skills.allowedTools"
)

// pickPlatform chooses the manifest of an index whose entries are the
// same artifact built for several platforms (ToolHive's skills). Skills
// are platform-neutral and every entry shares one content layer, so the
// first entry is read, as ToolHive's own installer does: never the
// running machine's platform, or the lock would differ between machines.
// ok is false unless every entry names a platform.
func pickPlatform(idx *manifestOrIndex) (ocispec.Descriptor, bool) {
	if len(idx.Manifests) < 2 {
		return ocispec.Descriptor{}, false
	}
	for _, d := range idx.Manifests {
		if d.Platform == nil || !isManifestType(d.MediaType) {
			return ocispec.Descriptor{}, false
		}
	}
	return idx.Manifests[0], true
}

// recogniseToolHive recognises a ToolHive skill manifest: its
// artifactType, an image config and exactly one archive layer.
func recogniseToolHive(desc ocispec.Descriptor, m *manifestOrIndex) (Layout, bool) {
	if m.ArtifactType != ToolHiveArtifactType || len(m.Layers) != 1 || !isArchive(m.Layers[0]) || m.Config.MediaType != ocispec.MediaTypeImageConfig {
		return Layout{}, false
	}
	return Layout{
		Format: FormatToolHive, Manifest: desc, ArtifactType: m.ArtifactType, Annotations: m.Annotations,
		Config: *m.Config, Layers: m.Layers,
		Note: "ToolHive skill artifact (" + ToolHiveArtifactType + "): read its " + m.Layers[0].MediaType + " layer as the skill folder and its config labels as the skill's metadata",
	}, true
}

// hasConfig reports whether the layout's config blob holds the skill's
// metadata (Resolve reads it).
func (l *Layout) hasConfig() bool { return l.SkillConfig() || l.Format == FormatToolHive }

// readToolHiveConfig reads the image config of a ToolHive manifest and
// maps its labels to a Config: name, description, version (when it is
// semver), license and allowed tools.
func (c *Client) readToolHiveConfig(ctx context.Context, res *Resolved) error {
	desc := res.Layout.Config
	if err := checkDescriptor(desc, c.limits.MaxConfigSize, "max_config_size"); err != nil {
		return err
	}
	data, err := c.fetchSmall(ctx, res, desc, "config")
	if err != nil {
		return err
	}
	cfg, err := toolHiveConfig(data)
	if err != nil {
		return err
	}
	res.Config, res.ConfigJSON = cfg, data
	return nil
}

// toolHiveConfig maps a ToolHive image config's labels to a Config.
func toolHiveConfig(data []byte) (*Config, error) {
	var img struct {
		Config struct {
			Labels map[string]string `json:"Labels"`
		} `json:"config"`
	}
	if err := json.Unmarshal(data, &img); err != nil {
		return nil, fmt.Errorf("%w: ToolHive image config is not valid JSON: %v", ErrNotSkill, err)
	}
	l := img.Config.Labels
	name := l[toolHiveLabelName]
	if name == "" {
		return nil, fmt.Errorf("%w: ToolHive image config has no %s label", ErrNotSkill, toolHiveLabelName)
	}
	// The name may become a folder name: one that is not a skill name
	// could be a path.
	if !skill.ValidName(name) {
		return nil, fmt.Errorf("%w: label %s names the skill %q, which is not a valid skill name", ErrNotSkill, toolHiveLabelName, name)
	}
	cfg := &Config{Name: name, Description: l[toolHiveLabelDescription], License: l[toolHiveLabelLicense]}
	// ToolHive copies the frontmatter's version as written; only a
	// semver one is a version here (else the tag says).
	if v := l[toolHiveLabelVersion]; v != "" {
		if _, err := semver.StrictNewVersion(v); err == nil {
			cfg.Version = v
		}
	}
	if t := l[toolHiveLabelAllowedTools]; t != "" && t != "null" {
		if err := json.Unmarshal([]byte(t), &cfg.AllowedTools); err != nil {
			return nil, fmt.Errorf("%w: label %s is not a JSON array of strings: %v", ErrNotSkill, toolHiveLabelAllowedTools, err)
		}
	}
	return cfg, nil
}
