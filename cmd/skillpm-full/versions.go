package main

import (
	"fmt"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/registry"
	"github.com/urfave/cli/v2"
)

func versionsCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "versions",
		Usage: "list a skill's published versions, lowest first",
		UsageText: `skillpm versions [options] REPOSITORY

Lists the semver tags of REPOSITORY ("_" read as "+"), sorted by semver.
Other tags (latest, signatures, attestations) are left out.

Examples:
  skillpm versions ghcr.io/acme/skills/pdf
  skillpm versions --json oci:./registry/pdf`,
		Flags: command.RegistryFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "versions takes one repository")
			}
			ref, err := parseRef(c, c.Args().First())
			if err != nil {
				return err
			}
			ro, err := command.ReadRegistryOptions(c)
			if err != nil {
				return err
			}
			client, err := registryClient(e, ro)
			if err != nil {
				return err
			}
			vs, err := client.Versions(c.Context, ref)
			if err != nil {
				return err
			}
			return printVersions(e, ref, vs)
		},
	}
}

// printVersions prints the tags as published, lowest first.
func printVersions(e *command.Env, ref registry.Reference, vs []*semver.Version) error {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Original())
	}
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"repository": ref.Repo(), "versions": out})
	}
	for _, v := range out {
		fmt.Fprintln(e.Stdout, command.TermLine(v))
	}
	return nil
}
