// Package indexer fills skillpm's search catalog ('skillpm index refresh'):
// for each registry prefix it lists the skill repositories (through the
// catalog API, or the names its caller gives for a registry without one),
// reads the newest version's config blob of each, in parallel, and writes
// the entries to the index file at the path its caller gives
// (index.PutCatalog). It reads no configuration and no environment of its
// own.
package indexer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"golang.org/x/sync/errgroup"
)

// DefaultLockTimeout is how long Refresh waits for the index's write lock
// when Options.LockTimeout is zero.
const DefaultLockTimeout = 5 * time.Second

// Registry is one registry prefix to index.
type Registry struct {
	// Prefix is the registry prefix: registry.example.com/org/skills, or
	// oci:/abs/folder (the index is shared by every project, so a layout
	// folder should be absolute).
	Prefix registry.Reference
	// Repositories are the names of its skill repositories, below Prefix.
	// Empty lists them through the registry's catalog API, and then the
	// catalog's other entries under Prefix are dropped: they are gone.
	Repositories []string
}

// Options configure Refresh.
type Options struct {
	// Registries are indexed in order.
	Registries []Registry
	// Path is the index file to write (required).
	Path string
	// LockTimeout bounds the wait for the index's write lock; zero is
	// DefaultLockTimeout.
	LockTimeout time.Duration
}

// Result is what Refresh indexed.
type Result struct {
	// Entries are the skills written to the catalog, in registry order.
	Entries []index.Entry
}

// Refresh indexes every registry of o through client and writes the
// entries to the catalog at o.Path. A repository that holds no skill
// version, or whose newest version cannot be read, is skipped; a registry
// that cannot be listed, or that fails (ErrNetwork) while its
// repositories are read, fails the refresh, and then nothing is written.
func Refresh(ctx context.Context, client *registry.Client, o Options) (*Result, error) {
	if o.LockTimeout <= 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	res := &Result{}
	var listed []string
	for _, r := range o.Registries {
		names := r.Repositories
		if len(names) == 0 {
			var err error
			if names, err = client.Repositories(ctx, r.Prefix); err != nil {
				return nil, err
			}
			listed = append(listed, r.Prefix.Repo())
		}
		got, err := describe(ctx, client, r.Prefix, names)
		if err != nil {
			return nil, err
		}
		res.Entries = append(res.Entries, got...)
	}
	if err := index.PutCatalog(o.Path, res.Entries, listed, o.LockTimeout); err != nil {
		return nil, fmt.Errorf("write the search index: %w", err)
	}
	return res, nil
}

// fatal is the error of a repository that fails the whole refresh: the
// registry failing (it is down, timed out, or answers what no registry
// should) or the refresh cancelled. Skipping those as "not a skill
// repository" would write an index without them, and drop their
// entries; nil for other errors (a repository that is not a skill's, or
// that the credentials do not reach), which skip it.
func fatal(ref registry.Reference, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.Is(err, registry.ErrNetwork), errors.Is(err, registry.ErrInsecure):
		return fmt.Errorf("index %s: %w", ref.Repo(), err)
	}
	return nil
}

// describe reads the newest version's config of every named repository
// under prefix, in parallel.
func describe(ctx context.Context, client *registry.Client, prefix registry.Reference, names []string) ([]index.Entry, error) {
	out := make([]*index.Entry, len(names))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(client.Concurrency())
	for i, name := range names {
		g.Go(func() error {
			ref, err := registry.Join(prefix, name)
			if err != nil {
				return nil // not a repository name skillpm can address
			}
			vs, err := client.Versions(ctx, ref)
			if err != nil || len(vs) == 0 {
				return fatal(ref, err) // else not a skill repository, or no versions: skip
			}
			sort.Sort(semver.Collection(vs))
			newest := vs[len(vs)-1]
			for i := len(vs) - 1; i >= 0; i-- {
				if vs[i].Prerelease() == "" {
					newest = vs[i]
					break
				}
			}
			res, err := client.Resolve(ctx, ref.WithTag(ociref.EscapeTag(newest.Original())))
			if err != nil || res.Config == nil {
				return fatal(ref, err)
			}
			en := &index.Entry{Repository: ref.Repo(), Name: res.Config.Name, Version: newest.Original(),
				Description: res.Config.Description, License: res.Config.License, IndexedAt: time.Now().UTC()}
			en.Tags = res.Config.Tags
			for _, t := range res.Config.Tools {
				en.Tools = append(en.Tools, t.Name)
			}
			out[i] = en
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var entries []index.Entry
	for _, en := range out {
		if en != nil {
			entries = append(entries, *en)
		}
	}
	return entries, nil
}
