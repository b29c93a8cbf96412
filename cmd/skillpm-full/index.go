package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/registry/ociref"

	"github.com/skillpm/skillpm/indexer"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/urfave/cli/v2"
)

func indexCommand(e *command.Env) *cli.Command {
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
			Flags: command.RegistryFlags(),
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
	registry command.RegistryOptions
}

// readIndexRefreshOptions reads the prefixes to index: the arguments,
// else the user config's search.registries, the current project's
// registry and SKILLPM_REGISTRY.
func readIndexRefreshOptions(e *command.Env, c *cli.Context) (indexRefreshOptions, error) {
	var o indexRefreshOptions
	cfg, err := e.UserConfig()
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
		if r := command.EnvRegistry(); r != "" {
			prefixes = append(prefixes, r)
		}
	}
	if len(prefixes) == 0 {
		return o, &command.UsageError{Msg: "no registries to index", Hint: "pass a registry prefix, or list them under search.registries in the user config"}
	}
	if o.registry, err = command.ReadRegistryOptions(c); err != nil {
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
	o.prefixes = command.Dedupe(sortedCopy(prefixes))
	for _, p := range o.prefixes {
		ref, err := registry.ParseReference(p)
		if err != nil {
			return o, command.UsageErrorf(c, "%v", err)
		}
		o.refresh.Registries = append(o.refresh.Registries, indexer.Registry{Prefix: ref, Repositories: cfg.Search.Repositories[p]})
	}
	o.refresh.Path, err = command.IndexPath()
	return o, err
}

// printIndexRefresh says how many skills were indexed from how many
// registries.
func printIndexRefresh(e *command.Env, o indexRefreshOptions, res *indexer.Result) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"indexed": len(res.Entries), "registries": o.prefixes})
	}
	if !e.Quiet {
		fmt.Fprintf(e.Stdout, "indexed %s from %s\n", command.Plural(len(res.Entries), "skill"), command.Plural(len(o.prefixes), "registry"))
	}
	return nil
}

func sortedCopy(s []string) []string {
	c := append([]string(nil), s...)
	sort.Strings(c)
	return c
}
