package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"
)

func searchCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "search",
		Usage: "search the skills of the configured registries",
		UsageText: `skillpm search [options] QUERY...

Every word must match a skill's name, description, tags or tool names;
name matches rank first. Search reads the local index: fill it with
'skillpm index refresh'.

Examples:
  skillpm search pdf
  skillpm search release notes --limit 5 --json`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "show at most `N` results (0: all)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrorf(c, "search needs a query")
			}
			path, err := indexPath()
			if err != nil {
				return err
			}
			hits, err := index.Search(path, strings.Join(c.Args().Slice(), " "), c.Int("limit"))
			if errors.Is(err, fs.ErrNotExist) {
				return &usageError{msg: "the search index is empty", hint: "run 'skillpm index refresh' (registries come from search.registries in the user config and the project's skills.yaml)"}
			}
			if err != nil {
				return err
			}
			if e.json {
				return writeJSON(e.stdout, nonNil(hits))
			}
			if len(hits) == 0 {
				if !e.quiet {
					fmt.Fprintln(e.stdout, "no skills match")
				}
				return nil
			}
			tw := newTable(e.stdout, 0, 4, 2)
			fmt.Fprintln(tw, "NAME\tVERSION\tREPOSITORY\tDESCRIPTION")
			for _, h := range hits {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termLine(h.Name), termLine(h.Version), termLine(h.Repository), termLine(truncate(h.Description, 60)))
			}
			return tw.Flush()
		},
	}
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func indexCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "index",
		Usage: "manage the local metadata index",
		Subcommands: []*cli.Command{{
			Name:  "refresh",
			Usage: "list the skills of the configured registries into the search index",
			UsageText: `skillpm index refresh [options] [PREFIX...]

PREFIX defaults to search.registries in the user config plus the current
project's registry. Registries are listed through the catalog API; for one
without it, name its skills in the user config:

  search:
    registries: [ghcr.io/acme/skills]
    repositories:
      ghcr.io/acme/skills: [pdf-tools, release-notes]

Examples:
  skillpm index refresh
  skillpm index refresh --plain-http localhost:5000/skills`,
			Flags: registryFlags(),
			Action: func(c *cli.Context) error {
				return runIndexRefresh(e, c)
			},
		}},
	}
}

func runIndexRefresh(e *env, c *cli.Context) error {
	cfg, err := e.userConfig()
	if err != nil {
		return err
	}
	prefixes := c.Args().Slice()
	if len(prefixes) == 0 {
		prefixes = append(prefixes, cfg.Search.Registries...)
		if wd, err := os.Getwd(); err == nil {
			if p, err := project.Load(wd); err == nil && p.Registry != "" {
				prefixes = append(prefixes, p.Abs(p.Registry))
			}
		}
		if r := os.Getenv("SKILLPM_REGISTRY"); r != "" {
			prefixes = append(prefixes, r)
		}
	}
	if len(prefixes) == 0 {
		return &usageError{msg: "no registries to index", hint: "pass a registry prefix, or list them under search.registries in the user config"}
	}
	client, err := newRegistryClient(e, c)
	if err != nil {
		return err
	}
	var entries []index.Entry
	var listed []string
	for i, p := range prefixes {
		// The index is shared by every folder: layouts are kept absolute.
		if dir, ok := strings.CutPrefix(p, registry.LayoutPrefix); ok {
			if abs, err := filepath.Abs(dir); err == nil {
				prefixes[i] = registry.LayoutPrefix + abs
			}
		}
	}
	prefixes = dedupe(sortedCopy(prefixes))
	for _, p := range prefixes {
		ref, err := registry.ParseReference(p)
		if err != nil {
			return usageErrorf(c, "%v", err)
		}
		names := cfg.Search.Repositories[p]
		if len(names) == 0 {
			if names, err = client.Repositories(c.Context, ref); err != nil {
				return err
			}
			listed = append(listed, ref.Repo())
		}
		got, err := indexRepositories(c, client, ref, names)
		if err != nil {
			return err
		}
		entries = append(entries, got...)
	}
	path, err := indexPath()
	if err != nil {
		return err
	}
	if err := index.PutCatalog(path, entries, listed, 5*time.Second); err != nil {
		return fmt.Errorf("write the search index: %w", err)
	}
	if e.json {
		return writeJSON(e.stdout, map[string]any{"indexed": len(entries), "registries": prefixes})
	}
	if !e.quiet {
		fmt.Fprintf(e.stdout, "indexed %s from %s\n", plural(len(entries), "skill"), plural(len(prefixes), "registry"))
	}
	return nil
}

// indexRepositories reads the newest version's config of every named
// repository under prefix, in parallel.
func indexRepositories(c *cli.Context, client *registry.Client, prefix registry.Reference, names []string) ([]index.Entry, error) {
	out := make([]*index.Entry, len(names))
	g, ctx := errgroup.WithContext(c.Context)
	g.SetLimit(client.Concurrency())
	for i, name := range names {
		g.Go(func() error {
			ref, err := registry.Join(prefix, name)
			if err != nil {
				return nil // not a repository name skillpm can address
			}
			vs, err := client.Versions(ctx, ref)
			if err != nil || len(vs) == 0 {
				return nil // not a skill repository, or no versions: skip
			}
			sort.Sort(semver.Collection(vs))
			newest := vs[len(vs)-1]
			for i := len(vs) - 1; i >= 0; i-- {
				if vs[i].Prerelease() == "" {
					newest = vs[i]
					break
				}
			}
			res, err := client.Resolve(ctx, ref.WithTag(registry.EscapeTag(newest.Original())))
			if err != nil || res.Config == nil {
				return nil
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

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
