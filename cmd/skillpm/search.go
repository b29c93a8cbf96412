package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/indexer"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/urfave/cli/v2"
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
			o := searchOptions{query: strings.Join(c.Args().Slice(), " "), limit: c.Int("limit")}
			var err error
			if o.index, err = indexPath(); err != nil {
				return err
			}
			hits, err := index.Search(o.index, o.query, o.limit)
			if errors.Is(err, fs.ErrNotExist) {
				return &usageError{msg: "the search index is empty", hint: "run 'skillpm index refresh' (registries come from search.registries in the user config and the project's skills.yaml)"}
			}
			if err != nil {
				return err
			}
			return printSearch(e, hits)
		},
	}
}

// searchOptions are search's flags and arguments.
type searchOptions struct {
	query string // the words to match, joined by spaces
	limit int    // --limit: at most this many hits; 0 is all
	index string // the index file (indexPath)
}

// printSearch prints the hits as a table, or as JSON.
func printSearch(e *env, hits []index.Hit) error {
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
				o, err := readIndexRefreshOptions(e, c)
				if err != nil {
					return err
				}
				client, err := registryClient(e, o.registry)
				if err != nil {
					return err
				}
				res, err := indexer.Refresh(c.Context, client, o.refresh)
				if err != nil {
					return err
				}
				return printIndexRefresh(e, o, res)
			},
		}},
	}
}

// indexRefreshOptions are index refresh's flags and arguments, with the
// user config's registries and named repositories.
type indexRefreshOptions struct {
	// prefixes are the registry prefixes as given (layouts made
	// absolute), sorted, without duplicates.
	prefixes []string
	refresh  indexer.Options
	registry registryOptions
}

// readIndexRefreshOptions reads the prefixes to index: the arguments,
// else the user config's search.registries, the current project's
// registry and SKILLPM_REGISTRY.
func readIndexRefreshOptions(e *env, c *cli.Context) (indexRefreshOptions, error) {
	var o indexRefreshOptions
	cfg, err := e.userConfig()
	if err != nil {
		return o, err
	}
	prefixes := c.Args().Slice()
	if len(prefixes) == 0 {
		prefixes = append(prefixes, cfg.Search.Registries...)
		if wd, err := os.Getwd(); err == nil {
			if p, err := project.Load(wd); err == nil && p.Registry != "" {
				prefixes = append(prefixes, p.Abs(p.Registry))
			}
		}
		if r := envRegistry(); r != "" {
			prefixes = append(prefixes, r)
		}
	}
	if len(prefixes) == 0 {
		return o, &usageError{msg: "no registries to index", hint: "pass a registry prefix, or list them under search.registries in the user config"}
	}
	if o.registry, err = readRegistryOptions(c); err != nil {
		return o, err
	}
	for i, p := range prefixes {
		// The index is shared by every folder: layouts are kept absolute.
		if dir, ok := strings.CutPrefix(p, ociref.LayoutPrefix); ok {
			if abs, err := filepath.Abs(dir); err == nil {
				prefixes[i] = ociref.LayoutPrefix + abs
			}
		}
	}
	o.prefixes = dedupe(sortedCopy(prefixes))
	for _, p := range o.prefixes {
		ref, err := registry.ParseReference(p)
		if err != nil {
			return o, usageErrorf(c, "%v", err)
		}
		o.refresh.Registries = append(o.refresh.Registries, indexer.Registry{Prefix: ref, Repositories: cfg.Search.Repositories[p]})
	}
	o.refresh.Path, err = indexPath()
	return o, err
}

// printIndexRefresh says how many skills were indexed from how many
// registries.
func printIndexRefresh(e *env, o indexRefreshOptions, res *indexer.Result) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"indexed": len(res.Entries), "registries": o.prefixes})
	}
	if !e.quiet {
		fmt.Fprintf(e.stdout, "indexed %s from %s\n", plural(len(res.Entries), "skill"), plural(len(o.prefixes), "registry"))
	}
	return nil
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
