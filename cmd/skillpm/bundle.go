package main

import (
	"fmt"
	"github.com/skillpm/skillpm/lockfile"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/bundle"
	"github.com/skillpm/skillpm/manager"
)

func bundleCommand(e *env) *cli.Command {
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
		Flags: append(projectFlags(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "skills-bundle.tar", Usage: "write the bundle to `PATH`: a layout folder, or a tarball ending in .tar"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "bundle takes no arguments; name the output with -o")
			}
			m, err := openManager(e, c, openOptions{})
			if err != nil {
				return err
			}
			lock, err := m.ReadLock()
			if err != nil {
				return err
			}
			if lock == nil || !m.Fresh(lock) {
				return fmt.Errorf("%w: bundle exports skills.lock as is (run 'skillpm install' first)", manager.ErrStaleLock)
			}
			// What a bundle carries is installed as is on the other
			// side: export only a lock that agrees with skills.yaml.
			if err := m.CheckLock(c.Context, lock); err != nil {
				return fmt.Errorf("%s: %w", m.LockPath(), err)
			}
			rs, ok := m.Registry.(*manager.RegistrySource)
			if !ok {
				return fmt.Errorf("bundle needs a registry client")
			}
			out := c.String("output")
			// A sourced skill is bundled from its packed copy in the cache.
			layouts := map[string]string{}
			for _, s := range lock.Skills {
				if lockfile.SourceKind(s.Repository) != "" {
					l, err := m.SourceLayout(c.Context, s)
					if err != nil {
						return err
					}
					layouts[s.Repository] = l
				}
			}
			abs := func(repo string) string {
				if l, ok := layouts[repo]; ok {
					return l
				}
				return m.Project.Abs(repo)
			}
			exp, err := bundle.Export(c.Context, rs.Client, lock, out, bundle.ExportOptions{Abs: abs})
			if err != nil {
				return err
			}
			if e.json {
				return writeJSON(e.stdout, exp)
			}
			if !e.quiet {
				refs := 0
				for _, s := range exp.Skills {
					refs += s.Referrers
				}
				fmt.Fprintf(e.stdout, "bundled %d skills with %d referrers into %s (%d blobs, %s)\n", len(exp.Skills), refs, out, exp.Blobs, humanBytes(exp.Bytes))
			}
			return nil
		},
	}
}
