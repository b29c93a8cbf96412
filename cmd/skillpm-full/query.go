package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/skillpm/skillpm/manager"
	"github.com/urfave/cli/v2"
)

func outdatedCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "outdated",
		Usage: "list locked skills that have newer versions",
		UsageText: `skillpm outdated [options]

WANTED is the newest version skills.yaml allows; LATEST the newest published.

Examples:
  skillpm outdated
  skillpm outdated --json`,
		Flags: command.ProjectFlags(),
		Action: func(c *cli.Context) error {
			oo, err := readOpenOptions(c)
			if err != nil {
				return err
			}
			m, err := openManager(e, oo)
			if err != nil {
				return err
			}
			rows, err := m.Outdated(c.Context)
			if err != nil {
				return err
			}
			return printOutdated(e, rows)
		},
	}
}

// printOutdated prints outdated's table, or its JSON rows.
func printOutdated(e *command.Env, rows []manager.OutdatedSkill) error {
	type row struct {
		Name    string `json:"name"`
		Current string `json:"current"`
		Wanted  string `json:"wanted"`
		Latest  string `json:"latest"`
	}
	if e.JSON {
		out := make([]row, 0, len(rows))
		for _, r := range rows {
			out = append(out, row(r))
		}
		return command.WriteJSON(e.Stdout, out)
	}
	if len(rows) == 0 {
		if !e.Quiet {
			fmt.Fprintln(e.Stdout, "all skills are up to date")
		}
		return nil
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tCURRENT\tWANTED\tLATEST")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", command.TermLine(r.Name), command.TermLine(r.Current), command.TermLine(r.Wanted), command.TermLine(r.Latest))
	}
	return tw.Flush()
}

func whyCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "why",
		Usage: "show why a skill is in the lock: the dependency paths to it",
		UsageText: `skillpm why [options] NAME

Examples:
  skillpm why slugify`,
		Flags: command.ProjectFlags(),
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return command.UsageErrorf(c, "why needs one skill name")
			}
			po, err := command.ReadProjectOptions(c)
			if err != nil {
				return err
			}
			m, err := openOffline(e, po)
			if err != nil {
				return err
			}
			res, err := m.Why(c.Context, c.Args().First())
			if err != nil {
				return err
			}
			return printWhy(e, res)
		},
	}
}

// printWhy prints each dependency path as "skills.yaml > a@1.0.0 > b@2.1.0".
func printWhy(e *command.Env, res *manager.WhyResult) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"name": res.Name, "version": res.Version, "paths": res.Paths})
	}
	for _, p := range res.Paths {
		var parts []string
		for i, n := range p {
			if s := res.Lock.Find(n); s != nil {
				n += "@" + s.Version
			}
			if i == 0 {
				n = "skills.yaml > " + n
			}
			parts = append(parts, n)
		}
		fmt.Fprintln(e.Stdout, command.TermLine(strings.Join(parts, " > ")))
	}
	return nil
}
