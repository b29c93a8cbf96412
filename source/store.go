package source

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/skill"
)

// Store packs exported skills into OCI layouts under a cache folder, one
// layout per entry, pin and version, created whole by a rename (a crash
// leaves no half layout). A layout read back is digest-checked by the
// registry client like any other.
type Store struct {
	// Dir holds the layouts (skillpm's cache dir/sources).
	Dir string
	// Client reads and writes the oci: layouts; it needs no network.
	Client *registry.Client
	// Limits bound what a skill may hold when packed, as for publish.
	Limits registry.Limits
}

// Packed is a sourced skill packed into the cache.
type Packed struct {
	// Layout is the layout's repository, oci:DIR (absolute).
	Layout string
	// Manifest and Content are the digests of the manifest and of its
	// content layer.
	Manifest, Content string
	// Name and Version are the skill's, as its config states them.
	Name, Version string
	// DependsOn are the config's depends_on entries ("name@constraint").
	DependsOn []string
	// Pin is the immutable id it was packed from.
	Pin lockfile.Source
}

const unversioned = "unversioned"

func (s *Store) dir(e Entry, pin lockfile.Source, tag string) string {
	h := sha256.Sum256([]byte(e.Repository + "\x00" + pin.Commit + "\x00" + pin.Digest + "\x00" + tag))
	return filepath.Join(s.Dir, hex.EncodeToString(h[:16]))
}

// Cached returns what the cache holds for e at pin packed as version, or
// nil when it holds nothing (which needs Pack, and the source).
func (s *Store) Cached(ctx context.Context, e Entry, pin lockfile.Source, version string) (*Packed, error) {
	for _, tag := range []string{"v" + ociref.EscapeTag(version), unversioned} {
		p, err := s.read(ctx, s.dir(e, pin, tag), pin)
		if err != nil {
			return nil, err
		}
		if p != nil && p.Version == version {
			return named(e, p, nil)
		}
	}
	return nil, nil
}

// named returns p when it holds the skill e names. The cache is keyed by
// where a skill comes from, not by the name skills.yaml gives it, so two
// entries naming one folder share one packed copy: the second gets the
// error a fresh pack would give it.
func named(e Entry, p *Packed, err error) (*Packed, error) {
	if err != nil || p == nil || p.Name == e.Name {
		return p, err
	}
	return nil, fmt.Errorf("%s: %s holds the skill %q, not %q: %w; name the entry %s in skills.yaml, or point it at the right folder", e.Name, display(e), p.Name, e.Name, ErrNotSkill, p.Name)
}

func (s *Store) read(ctx context.Context, dir string, pin lockfile.Source) (*Packed, error) {
	if _, err := os.Stat(filepath.Join(dir, "index.json")); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	ref, err := registry.ParseReference(ociref.LayoutPrefix + dir + ":skill")
	if err != nil {
		return nil, err
	}
	res, err := s.Client.Resolve(ctx, ref)
	if err != nil {
		return nil, fmt.Errorf("read the packed copy in %s: %w (remove that folder to repack it)", dir, err)
	}
	p := &Packed{Layout: ociref.LayoutPrefix + dir, Manifest: res.Ref.Digest.String(), Name: res.Name(), Version: res.Version(), Pin: pin}
	if len(res.Layout.Layers) > 0 {
		p.Content = res.Layout.Layers[0].Digest.String()
	}
	if res.Config != nil {
		for _, d := range res.Config.DependsOn {
			p.DependsOn = append(p.DependsOn, d.String())
		}
	}
	return p, nil
}

// Pack returns c packed: from the cache, or exported from src and packed
// reproducibly (registry.Pack) into a new layout. A candidate with a
// version is packed as that version; an unversioned one as its SKILL.md's
// version when that is a release version, else 0.0.0. The folder must
// hold the skill e names.
func (s *Store) Pack(ctx context.Context, src Source, e Entry, c Candidate) (*Packed, error) {
	tag := unversioned
	if c.Version != nil {
		tag = "v" + ociref.EscapeTag(c.Version.Original())
	}
	dir := s.dir(e, c.Pin, tag)
	if p, err := s.read(ctx, dir, c.Pin); err != nil || p != nil {
		return named(e, p, err)
	}
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(s.Dir, ".pack-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	files := filepath.Join(tmp, "files")
	if err := src.Export(ctx, e, c.Pin, files); err != nil {
		return nil, err
	}
	version := ""
	if c.Version != nil {
		version = c.Version.Original()
	} else {
		version = "0.0.0"
		if sk, err := skill.Load(files); err == nil {
			if v, err := semver.StrictNewVersion(sk.Frontmatter.Version); err == nil && v.Prerelease() == "" {
				version = v.Original()
			}
		}
	}
	if _, err := os.Stat(filepath.Join(files, "SKILL.md")); err != nil {
		return nil, fmt.Errorf("%s: %s holds no SKILL.md: %w; point path at a skill's folder", e.Name, display(e), ErrNotSkill)
	}
	pkg, err := registry.Pack(ctx, files, registry.PackOptions{Version: version, Revision: c.Pin.Commit, TempDir: tmp, Limits: s.Limits})
	if err != nil {
		return nil, fmt.Errorf("%s: pack %s: %w", e.Name, display(e), err)
	}
	defer pkg.Close()
	if pkg.Name != e.Name {
		return named(e, &Packed{Name: pkg.Name}, nil)
	}
	layout := filepath.Join(tmp, "layout")
	ref, err := registry.ParseReference(ociref.LayoutPrefix + layout)
	if err != nil {
		return nil, err
	}
	if _, err := s.Client.Publish(ctx, pkg, ref, registry.PublishOptions{Tag: "skill"}); err != nil {
		return nil, fmt.Errorf("%s: cache the packed skill: %w", e.Name, err)
	}
	if err := os.Rename(layout, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "index.json")); serr != nil {
			return nil, fmt.Errorf("%s: cache the packed skill: %w", e.Name, err)
		}
		p, err := s.read(ctx, dir, c.Pin) // another run packed it first
		return named(e, p, err)
	}
	p := &Packed{Layout: ociref.LayoutPrefix + dir, Manifest: pkg.Manifest.Digest.String(), Content: pkg.Layer.Digest.String(),
		Name: pkg.Name, Version: pkg.Version, Pin: c.Pin}
	for _, d := range pkg.Config.DependsOn {
		p.DependsOn = append(p.DependsOn, d.String())
	}
	return p, nil
}

func display(e Entry) string {
	if e.Repository != "" {
		return e.Repository
	}
	return e.Location
}
