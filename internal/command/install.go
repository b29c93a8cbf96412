package command

import (
	"github.com/urfave/cli/v2"
)

// InstallSpec is 'skillpm install' without its action. Both programs
// define it from here, so its flags and help are the same in each: the
// front answers a warm no-op itself (WarmInstallCommand), the full
// program installs.
func InstallSpec() *cli.Command {
	return &cli.Command{
		Name:    "install",
		Aliases: []string{"i"},
		Usage:   "install the project's locked skills into its target folders",
		UsageText: `skillpm install [options]

Installs exactly the skills of skills.lock into every target of skills.yaml.
Without a lock, or when skills.yaml changed, it re-resolves what changed
(keeping other locked versions) and writes the lock first.

Examples:
  skillpm install
  skillpm install --frozen      # CI: fail (exit 8) if the lock is missing or stale
  skillpm install --dry-run --json
  skillpm install --from skills-bundle.tar   # air-gapped: see 'skillpm bundle'
  skillpm install --agent cursor             # this run also fills the folders Cursor reads`,
		Flags: append(ProjectFlags(),
			&cli.BoolFlag{Name: "frozen", Usage: "install from skills.lock as is; fail if it is missing or stale, and write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "replace or remove managed skills that have local edits"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would change, change nothing"},
			&cli.StringFlag{Name: "from", Usage: "install skills.lock from `BUNDLE` ('skillpm bundle' output) with no network; implies --frozen"},
			AgentFlag("also install into the folders agent `NAME` reads, for this run only (repeatable; skills.yaml is not changed: use 'add --agent' or agents:)"),
		),
	}
}

// AgentFlag is --agent, repeatable, for add, install and doctor.
func AgentFlag(usage string) cli.Flag {
	return &cli.StringSliceFlag{Name: "agent", Usage: usage}
}

// WarmInstallCommand is the front's install: a warm no-op is answered
// from the stamp the full program left (warm.go); any other run, and
// any error, is handed to skillpm-full.
func WarmInstallCommand(e *Env) *cli.Command {
	cmd := InstallSpec()
	cmd.Action = func(c *cli.Context) error {
		if c.NArg() > 0 || warmInstall(c.Context, e, c, e.Args) != nil {
			return HandOff(e.Args)
		}
		return nil
	}
	return cmd
}
