package sync

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"

	"github.com/skillpm/skillpm/registry"
)

// An image index is copied whole, and the mirror's vetted attestation
// names the index's digest, but only the skill manifest the index was
// resolved to is pulled and vetted. Any other manifest it lists would be
// served by the mirror under the vetted digest without having been
// looked at: a client choosing by platform (docker, oras --platform, a
// ToolHive client on arm64) gets it. So an index passes only when every
// other manifest it lists is the same artifact for another platform, as
// ToolHive builds them: the same artifactType and layers, and a config
// whose labels (where ToolHive keeps the skill's metadata) are the same.

const (
	// maxIndexEntries bounds the manifests of an index sync reads: one
	// per platform.
	maxIndexEntries = 16
	// maxIndexJSON bounds an index, a manifest or a config read here.
	maxIndexJSON = 4 << 20
)

// checkIndex returns a rejection when res came from an image index that
// lists a manifest other than res's skill manifest and not the same
// artifact (see above); nil when it did not come from one.
func checkIndex(ctx context.Context, src registry.Target, res *registry.Resolved) (*Rejection, error) {
	if res.Index == nil {
		return nil, nil
	}
	reject := func(format string, args ...any) (*Rejection, error) {
		return &Rejection{Check: "content", Reason: fmt.Sprintf("image index %s: ", res.Index.Digest) + fmt.Sprintf(format, args...) +
			"; a mirror would serve it unvetted under the vetted index: publish the skill alone, or one identical manifest per platform"}, nil
	}
	var idx ocispec.Index
	if err := fetchJSON(ctx, src, *res.Index, &idx); err != nil {
		return nil, err
	}
	if len(idx.Manifests) > maxIndexEntries {
		return reject("it lists %d manifests, more than %d", len(idx.Manifests), maxIndexEntries)
	}
	chosen := res.Layout.Manifest
	var labels map[string]string // the chosen config's, read when needed
	for _, d := range idx.Manifests {
		if d.Digest == chosen.Digest {
			continue
		}
		if d.MediaType != ocispec.MediaTypeImageManifest {
			return reject("it also lists %s of type %q", d.Digest, d.MediaType)
		}
		var m ocispec.Manifest
		if err := fetchJSON(ctx, src, d, &m); err != nil {
			return nil, err
		}
		if m.ArtifactType != res.Layout.ArtifactType || !slices.EqualFunc(m.Layers, res.Layout.Layers, sameBlob) {
			return reject("manifest %s%s holds other content than the skill's manifest %s", d.Digest, platform(d), chosen.Digest)
		}
		if m.Config.Digest == res.Layout.Config.Digest {
			continue
		}
		if labels == nil {
			var err error
			if labels, err = configLabels(ctx, src, res.Layout.Config); err != nil {
				return nil, err
			}
		}
		other, err := configLabels(ctx, src, m.Config)
		if err != nil {
			return nil, err
		}
		if !maps.Equal(other, labels) {
			return reject("manifest %s%s carries other metadata (config labels) than the skill's manifest %s", d.Digest, platform(d), chosen.Digest)
		}
	}
	return nil, nil
}

func sameBlob(a, b ocispec.Descriptor) bool {
	return a.Digest == b.Digest && a.Size == b.Size && a.MediaType == b.MediaType
}

func platform(d ocispec.Descriptor) string {
	if p := d.Platform; p != nil {
		return " (" + p.OS + "/" + p.Architecture + ")"
	}
	return ""
}

// configLabels returns the labels of an image config (config.Labels),
// never nil: a config without labels has none.
func configLabels(ctx context.Context, src registry.Target, d ocispec.Descriptor) (map[string]string, error) {
	var img struct {
		Config struct {
			Labels map[string]string `json:"Labels"`
		} `json:"config"`
	}
	if err := fetchJSON(ctx, src, d, &img); err != nil {
		return nil, err
	}
	if img.Config.Labels == nil {
		return map[string]string{}, nil
	}
	return img.Config.Labels, nil
}

// fetchJSON reads d (at most maxIndexJSON bytes, checked against its
// digest) from src and decodes it into v.
func fetchJSON(ctx context.Context, src registry.Target, d ocispec.Descriptor, v any) error {
	if d.Size < 0 || d.Size > maxIndexJSON {
		return fmt.Errorf("%w: %s is %d bytes, more than %d", registry.ErrIntegrity, d.Digest, d.Size, maxIndexJSON)
	}
	data, err := content.FetchAll(ctx, src, d)
	if err != nil {
		return fmt.Errorf("read %s: %w", d.Digest, registry.Classify(err))
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%w: %s is not JSON: %v", registry.ErrIntegrity, d.Digest, err)
	}
	return nil
}
