package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/errdef"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/skill"
)

// Resolved is a skill artifact whose manifest and config have been read
// (and checked) but whose content has not been downloaded.
type Resolved struct {
	// Ref is the reference as asked, with the tag chosen for a range (or
	// for no tag at all) and Digest set to the skill manifest's.
	Ref Reference
	// Index is the image index the reference named, when the skill's
	// manifest was wrapped in one.
	Index *ocispec.Descriptor
	// Layout says where the skill is in the artifact.
	Layout Layout
	// ManifestJSON is the skill manifest as served.
	ManifestJSON []byte
	// Config is the Agent Skills config, nil for other artifacts;
	// ConfigJSON is its raw form.
	Config     *Config
	ConfigJSON []byte

	target target
	remote bool
}

// Name is the skill's name from its config or annotations ("" when the
// artifact does not say).
func (r *Resolved) Name() string {
	if r.Config != nil && r.Config.Name != "" {
		return r.Config.Name
	}
	return r.Layout.Annotations[AnnotationSkillName]
}

// Version is the skill's version from its config, annotations or tag,
// the first that is strict semver; "" when none is. The registry writes
// all three, and a version becomes a constraint in skills.yaml ('add
// REF@DIGEST'): "*" must not turn a pin into a range.
func (r *Resolved) Version() string {
	if r.Config != nil && isSemver(r.Config.Version) {
		return r.Config.Version
	}
	if v := r.Layout.Annotations[ocispec.AnnotationVersion]; isSemver(v) {
		return v
	}
	if v, ok := ociref.VersionFromTag(r.Ref.Tag); ok {
		return v.Original()
	}
	return ""
}

func isSemver(v string) bool {
	_, err := semver.StrictNewVersion(v)
	return v != "" && err == nil
}

// Resolve finds the skill ref names and reads its manifest and config.
// A digest is served from the cache without any request when the cache
// holds it. A range picks the highest matching version tag; no tag at
// all picks the highest stable version, or "latest" when the
// repository has no version tags.
func (c *Client) Resolve(ctx context.Context, ref Reference) (*Resolved, error) {
	res, err := c.resolveManifest(ctx, ref)
	if err != nil {
		return nil, err
	}
	if res.Layout.hasConfig() {
		if err := c.readConfig(ctx, res); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", ref, err)
		}
	}
	return res, nil
}

// resolveManifest is Resolve without reading the config.
func (c *Client) resolveManifest(ctx context.Context, ref Reference) (*Resolved, error) {
	t, err := c.open(ctx, ref, false)
	if err != nil {
		return nil, err
	}
	res := &Resolved{Ref: ref, target: t, remote: !ref.IsLayout()}
	if ref.Digest == "" && (ref.Tag == "" || ref.Range != "") {
		tag, err := c.pickTag(ctx, t, ref)
		if err != nil {
			return nil, err
		}
		res.Ref.Tag, res.Ref.Range = tag, ""
	}
	name := res.Ref.Tag
	if ref.Digest != "" {
		name = ref.Digest.String()
	}
	desc, data, err := c.fetchManifest(ctx, res, name, ref.Digest)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	m, isIndex, err := decodeManifest(data, desc.MediaType)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	if isIndex {
		idx := desc
		res.Index = &idx
		child, err := pickFromIndex(m)
		if err == nil {
			err = checkDescriptor(child, c.limits.MaxManifestSize, "max_manifest_size")
		}
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", ref, err)
		}
		if desc, data, err = c.fetchManifest(ctx, res, child.Digest.String(), child.Digest); err != nil {
			return nil, fmt.Errorf("resolve %s: %w", ref, err)
		}
		if m, isIndex, err = decodeManifest(data, child.MediaType); err == nil && isIndex {
			err = fmt.Errorf("%w: nested image index", ErrNotSkill)
		}
		if err != nil {
			return nil, fmt.Errorf("resolve %s: %w", ref, err)
		}
	}
	res.Ref.Digest = desc.Digest
	res.ManifestJSON = data
	if res.Layout, err = recognise(desc, m); err != nil {
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	if err := c.checkLayout(res.Layout); err != nil {
		return nil, fmt.Errorf("resolve %s: %w", ref, err)
	}
	return res, nil
}

// checkLayout checks the sizes of the descriptors a pull will read,
// before anything is read: a size of 0 or less would bound nothing.
func (c *Client) checkLayout(l Layout) error {
	if l.hasConfig() {
		if err := checkDescriptor(l.Config, c.limits.MaxConfigSize, "max_config_size"); err != nil {
			return err
		}
	}
	for _, d := range l.Layers {
		if l.Format != FormatFiles && d.Size == 0 {
			// An empty archive holds no SKILL.md.
			return fmt.Errorf("%w: content layer %s: its descriptor says 0 bytes; sizes must be positive", ErrIntegrity, d.Digest)
		}
		if err := checkDescriptor(d, c.limits.MaxBlobSize, "max_blob_size"); err != nil {
			return err
		}
	}
	return nil
}

// fetchManifest reads a manifest by tag or digest, through the cache
// when it is addressed by digest, and checks its digest and size.
func (c *Client) fetchManifest(ctx context.Context, res *Resolved, name string, want digest.Digest) (ocispec.Descriptor, []byte, error) {
	cache := c.cacheFor(res)
	if want != "" && cache != nil && cache.Has(want, -1) {
		if data, err := cache.ReadAll(want, c.limits.MaxManifestSize); err == nil {
			return ocispec.Descriptor{Digest: want, Size: int64(len(data)), MediaType: sniffMediaType(data)}, data, nil
		}
	}
	desc, data, err := oras.FetchBytes(ctx, res.target, name, oras.FetchBytesOptions{MaxBytes: c.limits.MaxManifestSize})
	if err != nil {
		return desc, nil, classifyFetch(err, "manifest", c.limits.MaxManifestSize)
	}
	if want != "" && desc.Digest != want {
		return desc, nil, fmt.Errorf("%w: manifest digest is %s, want %s", ErrIntegrity, desc.Digest, want)
	}
	// A manifest fetched by tag is usually cached already (a warm pull):
	// rewriting it would cost a file and a rename for nothing.
	if cache != nil && !cache.Has(desc.Digest, desc.Size) {
		if err := cache.Put(ctx, desc.Digest, desc.Size, bytes.NewReader(data)); err != nil {
			return desc, nil, err
		}
	}
	return desc, data, nil
}

// classifyFetch turns oras-go's verification errors into ErrIntegrity.
func classifyFetch(err error, what string, max int64) error {
	if err, ok := answerKind(err); ok {
		// oras-go's own words about an answer (a token answer cut at
		// its limit ends in io.ErrUnexpectedEOF too, but is no
		// content's).
		return err
	}
	switch {
	case errors.Is(err, content.ErrMismatchedDigest), errors.Is(err, content.ErrTrailingData), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: %s does not match its digest: %v", ErrIntegrity, what, err)
	case errors.Is(err, errdef.ErrSizeExceedsLimit):
		return fmt.Errorf("%w: %s is over the %d byte limit", ErrIntegrity, what, max)
	}
	return classify(err)
}

func sniffMediaType(data []byte) string {
	var v struct {
		MediaType string `json:"mediaType"`
	}
	json.Unmarshal(data, &v)
	return v.MediaType
}

// cacheFor returns the cache to use for res's repository: none for
// layout folders, which are local already.
func (c *Client) cacheFor(res *Resolved) *Cache {
	if !res.remote {
		return nil
	}
	return c.opts.Cache
}

func (c *Client) readConfig(ctx context.Context, res *Resolved) error {
	if res.Layout.Format == FormatToolHive {
		return c.readToolHiveConfig(ctx, res)
	}
	desc := res.Layout.Config
	if err := checkDescriptor(desc, c.limits.MaxConfigSize, "max_config_size"); err != nil {
		return err
	}
	data, err := c.fetchSmall(ctx, res, desc, "config")
	if err != nil {
		return err
	}
	var cfg Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return fmt.Errorf("%w: config is not valid JSON: %v", ErrNotSkill, err)
	}
	// The name may become a folder name (pull without -o): one that is
	// not a skill name could be a path.
	if cfg.Name != "" && !skill.ValidName(cfg.Name) {
		return fmt.Errorf("%w: config names the skill %q, which is not a valid skill name", ErrNotSkill, cfg.Name)
	}
	res.Config, res.ConfigJSON = &cfg, data
	return nil
}

// fetchSmall reads a small blob through the cache and checks it.
func (c *Client) fetchSmall(ctx context.Context, res *Resolved, desc ocispec.Descriptor, what string) ([]byte, error) {
	cache := c.cacheFor(res)
	if cache != nil && cache.Has(desc.Digest, desc.Size) {
		if data, err := cache.ReadAll(desc.Digest, desc.Size); err == nil {
			return data, nil
		}
	}
	data, err := content.FetchAll(ctx, res.target, desc)
	if err != nil {
		return nil, classifyFetch(err, what, desc.Size)
	}
	if cache != nil {
		if err := cache.Put(ctx, desc.Digest, desc.Size, bytes.NewReader(data)); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// PullOptions control Pull and Extract.
type PullOptions struct {
	// Overwrite replaces a destination folder that is not empty.
	Overwrite bool
}

// Pulled is a skill written to disk.
type Pulled struct {
	*Resolved
	Dir   string
	Stats UnpackStats
}

// Pull resolves ref and writes the skill's files into dst
// (dst/SKILL.md), atomically.
//
// The config is read while the content downloads; the skill is moved
// into place only when both have checked out.
func (c *Client) Pull(ctx context.Context, ref Reference, dst string, opts PullOptions) (*Pulled, error) {
	res, err := c.resolveManifest(ctx, ref)
	if err != nil {
		return nil, err
	}
	var check func() error
	if res.Layout.hasConfig() {
		done := make(chan error, 1)
		go func() { done <- c.readConfig(ctx, res) }()
		var once sync.Once
		var cerr error
		check = func() error {
			once.Do(func() {
				if cerr = <-done; cerr != nil {
					cerr = fmt.Errorf("resolve %s: %w", ref, cerr)
				}
			})
			return cerr
		}
		defer check() // never leave the reader running
	}
	st, err := c.extract(ctx, res, dst, opts, check)
	if err != nil {
		return nil, err
	}
	return &Pulled{Resolved: res, Dir: dst, Stats: st}, nil
}

// PullRequest is one skill for PullAll.
type PullRequest struct {
	Ref Reference
	Dst string
}

// PullAll pulls every request, at most Concurrency at a time. It stops
// at the first error.
func (c *Client) PullAll(ctx context.Context, reqs []PullRequest, opts PullOptions) ([]*Pulled, error) {
	out := make([]*Pulled, len(reqs))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.Concurrency)
	for i, r := range reqs {
		g.Go(func() error {
			p, err := c.Pull(ctx, r.Ref, r.Dst, opts)
			out[i] = p
			return err
		})
	}
	return out, g.Wait()
}

// Extract downloads the content of a resolved skill (through the cache)
// and writes its files into dst. Nothing is moved into place before
// every byte has matched its digest.
func (c *Client) Extract(ctx context.Context, res *Resolved, dst string, opts PullOptions) (UnpackStats, error) {
	return c.extract(ctx, res, dst, opts, nil)
}

func (c *Client) extract(ctx context.Context, res *Resolved, dst string, opts PullOptions, check func() error) (UnpackStats, error) {
	uo := UnpackOptions{Limits: c.limits, Overwrite: opts.Overwrite, Check: check, Name: res.Name}
	if res.Layout.Format == FormatFiles {
		return c.extractFiles(ctx, res, dst, uo)
	}
	layer := res.Layout.Layers[0]
	if err := checkDescriptor(layer, c.limits.MaxBlobSize, "max_blob_size"); err != nil || layer.Size == 0 {
		if err == nil {
			err = fmt.Errorf("%w: content layer %s is empty", ErrIntegrity, layer.Digest)
		}
		return UnpackStats{}, fmt.Errorf("pull %s: %w", res.Ref, err)
	}
	uo.Digest, uo.Size = layer.Digest, layer.Size
	cache := c.cacheFor(res)
	if cache == nil {
		rc, err := res.target.Fetch(ctx, layer)
		if err != nil {
			return UnpackStats{}, fmt.Errorf("pull %s: %w", res.Ref, classify(err))
		}
		defer rc.Close()
		r, done := c.withProgress(httpbound.LimitReader(rc, layer.Size), layer.Digest.String(), layer.Size)
		defer done()
		st, err := Unpack(ctx, r, dst, uo)
		return st, wrapPull(res, classify(err))
	}
	if !cache.Has(layer.Digest, layer.Size) {
		st, err := c.streamLayer(ctx, res, layer, dst, uo)
		return st, wrapPull(res, err)
	}
	rc, _, err := cache.Open(layer.Digest)
	if err != nil {
		return UnpackStats{}, err
	}
	st, err := Unpack(ctx, rc, dst, uo)
	rc.Close()
	if err != nil && !errors.Is(err, ErrExists) && !errors.Is(err, context.Canceled) && (errors.Is(err, ErrIntegrity) || !cache.Verify(layer)) {
		// A corrupt cache entry (it may fail as a bad archive before its
		// digest is checked): drop it and fetch it again.
		cache.Delete(layer.Digest)
		st, err = c.streamLayer(ctx, res, layer, dst, uo)
	}
	return st, wrapPull(res, err)
}

// streamLayer downloads a layer and unpacks it in one pass, writing it
// into the cache as it goes. The cache entry is kept only when Unpack
// has checked the digest of every byte.
func (c *Client) streamLayer(ctx context.Context, res *Resolved, layer ocispec.Descriptor, dst string, uo UnpackOptions) (UnpackStats, error) {
	rc, err := res.target.Fetch(ctx, layer)
	if err != nil {
		return UnpackStats{}, classify(err)
	}
	defer rc.Close()
	w, err := c.opts.Cache.NewWriter(layer.Digest, layer.Size)
	if err != nil {
		return UnpackStats{}, err
	}
	// The layer is read no further than its descriptor says, whatever
	// the target: nothing beyond it reaches the cache.
	r, done := c.withProgress(httpbound.LimitReader(rc, layer.Size), layer.Digest.String(), layer.Size)
	st, err := Unpack(ctx, io.TeeReader(r, w), dst, uo)
	done()
	if err != nil {
		w.Abort()
		return st, classify(err)
	}
	return st, w.Commit()
}

func wrapPull(res *Resolved, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("pull %s: %w", res.Ref, err)
}
