package main

import (
	"fmt"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/registry"
)

// collectionFlag is publish's --collection.
var collectionFlag = &cli.StringFlag{Name: "collection", Usage: "publish a collection named `NAME`: REF SKILL_REF... (an image index of the skills' manifests)"}

// runPublishCollection is 'skillpm publish --collection NAME REF
// SKILL_REF...': the skills are resolved, their manifests copied into
// REF's repository, and the collection index tagged there.
func runPublishCollection(c *cli.Context, e *command.Env, name string) error {
	if c.NArg() < 2 {
		return command.UsageErrorf(c, "publish --collection %s takes the collection's reference and at least one skill reference", name)
	}
	ref, err := parseRef(c, c.Args().First())
	if err != nil {
		return err
	}
	var skills []registry.Reference
	for _, a := range c.Args().Slice()[1:] {
		r, err := parseRef(c, a)
		if err != nil {
			return err
		}
		skills = append(skills, r)
	}
	ro, err := command.ReadRegistryOptions(c)
	if err != nil {
		return err
	}
	client, err := registryClient(e, ro)
	if err != nil {
		return err
	}
	col, err := client.PublishCollection(c.Context, name, ref, skills)
	if err != nil {
		return err
	}
	if !e.JSON && !e.Quiet {
		fmt.Fprint(e.Stdout, "published ")
	}
	return printCollection(e, col)
}

// printCollection prints a collection and its skills (publish
// --collection, and inspect of a collection).
func printCollection(e *command.Env, col *registry.Collection) error {
	if e.JSON {
		members := make([]map[string]any, 0, len(col.Members))
		for _, m := range col.Members {
			members = append(members, map[string]any{"name": m.Name, "version": m.Version, "repository": m.Repository, "manifest": m.Manifest.Digest})
		}
		return command.WriteJSON(e.Stdout, map[string]any{"collection": col.Name, "reference": col.Ref.String(), "digest": col.Ref.Digest, "skills": members})
	}
	if !e.Quiet {
		fmt.Fprintf(e.Stdout, "collection %s (%s)\n%s\n", command.TermLine(col.Name), command.Plural(len(col.Members), "skill"), col.Ref)
		for _, m := range col.Members {
			fmt.Fprintf(e.Stdout, "  %s %s %s@%s\n", m.Name, m.Version, command.TermLine(m.Repository), m.Manifest.Digest)
		}
	}
	return nil
}
