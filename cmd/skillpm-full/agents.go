package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/internal/command"
)

func agentsCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "agents",
		Usage: "list the agents skillpm knows, which are set up here, and the folders each reads",
		UsageText: `skillpm agents [options]

An agent is "detected" when its folder in your home (~/.claude, ~/.gemini,
...) exists or its program is on PATH. Project folders are relative to a
project's root, user folders to your home; an agent reads both. Agent IDs
are what skills.yaml's agents: and --agent take.

Examples:
  skillpm agents
  skillpm agents --json`,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return command.UsageErrorf(c, "agents takes no arguments")
			}
			home, _ := os.UserHomeDir()
			type row struct {
				agent.Program
				Detected bool `json:"detected"`
			}
			rows := make([]row, len(agent.Programs))
			for i, p := range agent.Programs {
				rows[i] = row{Program: p, Detected: p.Detected(home)}
			}
			if e.JSON {
				return command.WriteJSON(e.Stdout, map[string]any{"agents": rows})
			}
			tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "AGENT\tNAME\tDETECTED\tPROJECT FOLDERS\tUSER FOLDERS")
			for _, r := range rows {
				detected := "no"
				if r.Detected {
					detected = "yes"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t~/%s\n", r.ID, r.Name, detected,
					strings.Join(r.ProjectDirs, " "), strings.Join(r.UserDirs, " ~/"))
			}
			return tw.Flush()
		},
	}
}
