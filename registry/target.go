package registry

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/skillpm/skillpm/registry/ociref"
)

// Target is one repository as oras-go copies it: a registry's or an
// OCI layout folder's, with its tags and referrers (Predecessors).
type Target interface {
	oras.GraphTarget
	Tags(ctx context.Context, last string, fn func(tags []string) error) error
}

// Target opens ref's repository for copying, without mirrors: sync and
// bundle name the exact registries they read and write. A layout folder
// that does not exist is created only when create is set.
func (c *Client) Target(ctx context.Context, ref Reference, create bool) (Target, error) {
	t, err := c.openDirect(ctx, ref, create)
	if err != nil {
		return nil, err
	}
	gt, ok := t.(Target)
	if !ok {
		return nil, fmt.Errorf("%s: cannot list referrers there", ref.Repo())
	}
	return gt, nil
}

// Classify marks an error from oras-go or net/http with this package's
// sentinels (ErrNotFound, ErrNetwork, …), for callers that use Target.
func Classify(err error) error { return classify(err) }

// Repositories lists the repositories under prefix, a registry prefix
// ("registry.example.com/org/skills") or a folder of OCI layouts
// ("oci:./registry"), as paths relative to it, sorted. Registries are
// asked through the catalog API (/v2/_catalog); a registry without one
// fails with an error wrapping ErrNotFound or ErrUnauthorized.
func (c *Client) Repositories(ctx context.Context, prefix Reference) ([]string, error) {
	if prefix.IsLayout() {
		return layoutRepositories(prefix.Layout)
	}
	reg, err := remote.NewRegistry(prefix.Registry)
	if err != nil {
		return nil, err
	}
	reg.Client = c.auth
	reg.PlainHTTP = c.plainHTTP(prefix.Registry)
	reg.MaxMetadataBytes = c.limits.MaxManifestSize
	// oras-go does not bound catalog pages: the pager does.
	ctx, p := newPager(ctx, prefix.Registry, "catalog", c.limits)
	base := strings.Trim(prefix.Repository, "/") + "/"
	var out []string
	err = reg.Repositories(ctx, "", func(repos []string) error {
		if err := p.items(len(repos)); err != nil {
			return err
		}
		for _, r := range repos {
			if rest, ok := strings.CutPrefix(r, base); ok && rest != "" {
				out = append(out, rest)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list repositories of %s (catalog API): %w", prefix.Repo(), classify(p.unwrap(err)))
	}
	sort.Strings(out)
	return out, nil
}

// layoutRepositories finds the OCI layout folders under dir.
func layoutRepositories(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if _, err := os.Stat(filepath.Join(p, "oci-layout")); err == nil {
			if rel, err := filepath.Rel(dir, p); err == nil && rel != "." {
				out = append(out, filepath.ToSlash(rel))
			}
			return filepath.SkipDir
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s%s: %w", ociref.LayoutPrefix, dir, ErrNotFound)
	}
	sort.Strings(out)
	return out, err
}

// Join returns the repository name below prefix (a registry prefix or a
// folder of layouts).
func Join(prefix Reference, name string) (Reference, error) {
	return ParseReference(strings.TrimRight(prefix.Repo(), "/") + "/" + strings.Trim(name, "/"))
}

// Source opens ref's repository for reading and copying, through the
// client's mirrors (bundle reads what install would read).
func (c *Client) Source(ctx context.Context, ref Reference) (Target, error) {
	t, err := c.open(ctx, ref, false)
	if err != nil {
		return nil, err
	}
	if mt, ok := t.(*mirrorTarget); ok {
		return mt, nil
	}
	gt, ok := t.(Target)
	if !ok {
		return nil, fmt.Errorf("%s: cannot list referrers there", ref.Repo())
	}
	return gt, nil
}
