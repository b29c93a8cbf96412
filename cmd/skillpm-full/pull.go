package main

import (
	"fmt"
	"path"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/skill"
)

func pullCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "pull",
		Usage: "download a skill into a folder",
		UsageText: `skillpm pull [options] REF

REF is REPOSITORY[:TAG|@sha256:DIGEST|@RANGE]; with neither, the highest
stable version. The skill's files land in DIR (DIR/SKILL.md), by default a
folder named after the skill. Every byte is checked against its digest
before anything is written; content is cached by digest under
$SKILLPM_HOME/cache, so pulling it again downloads nothing.

Examples:
  skillpm pull ghcr.io/acme/skills/pdf:1.2.0
  skillpm pull ghcr.io/acme/skills/pdf@^1.2 -o .claude/skills/pdf
  skillpm pull oci:./registry/pdf@sha256:0f2e… -o pdf`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the skill into `DIR`"},
			&cli.BoolFlag{Name: "force", Usage: "replace DIR when it is not empty"},
		}, command.RegistryFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "pull takes one reference")
			}
			o := pullOptions{dir: c.String("output"), force: c.Bool("force")}
			var err error
			if o.ref, err = parseRef(c, c.Args().First()); err != nil {
				return err
			}
			if o.registry, err = command.ReadRegistryOptions(c); err != nil {
				return err
			}
			return runPull(c, e, o)
		},
	}
}

// pullOptions are pull's flags and argument.
type pullOptions struct {
	ref registry.Reference // the skill to pull
	// dir (-o) is the folder to write; "" is a folder named after the
	// skill (pullDir).
	dir string
	// force replaces a dir that is not empty; false refuses it.
	force    bool
	registry command.RegistryOptions // the registry flags
}

func runPull(c *cli.Context, e *command.Env, o pullOptions) error {
	client, err := registryClient(e, o.registry)
	if err != nil {
		return err
	}
	res, err := client.Resolve(c.Context, o.ref)
	if err != nil {
		return err
	}
	if res.Layout.Note != "" {
		fmt.Fprintf(e.Stderr, "warning: %s: %s\n", res.Ref.Repo(), command.TermLine(res.Layout.Note))
	}
	dst := o.dir
	if dst == "" {
		if dst = pullDir(res, o.ref); dst == "" {
			return command.UsageErrorf(c, "cannot tell the skill's folder: %q is not a skill name; pass -o DIR", res.Name())
		}
	}
	st, err := client.Extract(c.Context, res, dst, registry.PullOptions{Overwrite: o.force})
	if err != nil {
		return err
	}
	return printPull(e, res, dst, st)
}

// printPull reports what pull wrote.
func printPull(e *command.Env, res *registry.Resolved, dst string, st registry.UnpackStats) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{
			"name": res.Name(), "version": res.Version(), "reference": res.Ref.String(),
			"digest": res.Ref.Digest, "format": res.Layout.Format, "note": res.Layout.Note,
			"dir": dst, "files": st.Files, "bytes": st.Bytes,
		})
	}
	if !e.Quiet {
		fmt.Fprintf(e.Stdout, "pulled %s %s into %s\n%s\n", command.TermLine(command.OrUnknown(res.Name())), command.TermLine(command.OrNone(res.Version())), dst, res.Ref)
	}
	return nil
}

// pullDir is the folder pull writes to without -o: the skill's name,
// else the repository's last element, the first that is a valid skill
// name; "" when neither is. Both come from the registry, so neither may
// be trusted as a path ("../x", "/abs").
func pullDir(res *registry.Resolved, ref registry.Reference) string {
	for _, name := range []string{res.Name(), path.Base(ref.Repository)} {
		if skill.ValidName(name) {
			return name
		}
	}
	return ""
}
