package main

import (
	"github.com/skillpm/skillpm/internal/command"
	"github.com/urfave/cli/v2"
)

func execCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "exec",
		Usage: "run a script from an installed skill's folder (the use_skill tool)",
		UsageText: `skillpm exec [options] SKILL SCRIPT [-- ARGS...]

Runs SCRIPT (a path inside the skill folder) with ARGS as separate arguments,
never through a shell: .js/.mjs/.cjs run under node, .py under python3, .sh
under bash, anything else directly. Prints the use_skill result
{"success","stdout","stderr","exitCode","error"} on stdout and exits with code
12 when success is false. Put ARGS that start with "-" after "--".

Examples:
  skillpm exec discord discord.mjs channels list
  skillpm exec deploy scripts/deploy.sh -- --env=staging
  skillpm exec pdf scripts/extract.py report.pdf --timeout 2m
  skillpm exec --max-output 4096 deploy scripts/status.sh`,
		Flags: append(append(command.RunFlags(), command.MaxOutputFlag()), append(command.FilterFlags(), command.CatalogFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return command.UsageErrorf(c, "missing SKILL or SCRIPT: skillpm exec SKILL SCRIPT [ARGS...]")
			}
			cat, err := command.PrepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			args := c.Args().Slice()
			run, err := command.RunOptions(e, c)
			if err != nil {
				return err
			}
			res, err := cat.UseSkill(c.Context, args[0], args[1], args[2:], run)
			if werr := command.WriteJSON(e.Stdout, res); werr != nil {
				return werr
			}
			return err
		},
	}
}
