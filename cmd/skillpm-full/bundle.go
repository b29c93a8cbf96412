package main

import (
	"fmt"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/bundle"
)

func bundleCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "bundle",
		Usage: "export skills.lock's whole closure, with signatures, for an air-gapped install",
		UsageText: `skillpm bundle [options] [-o DIR|FILE.tar]

Copies every skill of skills.lock, by its locked digest, with its
signature and provenance referrers, into one OCI image layout folder (or a
tarball of it when the name ends in .tar). On the other side of the air
gap, 'skillpm install --from BUNDLE' installs the same lock with no
network, checking every digest.

Examples:
  skillpm bundle -o skills-bundle.tar
  skillpm bundle -o /media/usb/skills      # an OCI layout folder
  skillpm install --from skills-bundle.tar # no network`,
		Flags: append(command.ProjectFlags(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "skills-bundle.tar", Usage: "write the bundle to `PATH`: a layout folder, or a tarball ending in .tar"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return command.UsageErrorf(c, "bundle takes no arguments; name the output with -o")
			}
			oo, err := readOpenOptions(c)
			if err != nil {
				return err
			}
			m, err := openManager(e, oo)
			if err != nil {
				return err
			}
			exp, err := bundle.ExportProject(c.Context, m, c.String("output"))
			if err != nil {
				return err
			}
			return printBundle(e, exp)
		},
	}
}

// printBundle says what the bundle holds and where it was written.
func printBundle(e *command.Env, exp *bundle.Exported) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, exp)
	}
	if !e.Quiet {
		refs := 0
		for _, s := range exp.Skills {
			refs += s.Referrers
		}
		fmt.Fprintf(e.Stdout, "bundled %d skills with %d referrers into %s (%d blobs, %s)\n", len(exp.Skills), refs, exp.Path, exp.Blobs, command.HumanBytes(exp.Bytes))
	}
	return nil
}
