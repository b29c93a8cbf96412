package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/manager"
)

// agentFlag is --agent, repeatable, for add, install and doctor.
func agentFlag(usage string) cli.Flag {
	return &cli.StringSliceFlag{Name: "agent", Usage: usage}
}

// agentIDs reads --agent; an unknown ID is a usage error listing the
// known ones (exit 2).
func agentIDs(c *cli.Context) ([]string, error) {
	ids := c.StringSlice("agent")
	for _, id := range ids {
		if _, err := agent.LookupProgram(id); err != nil {
			return nil, &usageError{msg: "--agent: " + err.Error(), hint: "'skillpm agents' lists the agents and the folders each reads"}
		}
	}
	return ids, nil
}

// recordAgents is add --agent (through manager.AddOptions.Edit, once
// skills.yaml is read under the project lock): the agents are recorded in
// skills.yaml's agents: when that changes the targets
// (project.Manifest.AddAgents), and m's targets follow.
func recordAgents(m *manager.Manager, ids []string, user bool) error {
	if len(ids) == 0 {
		return nil
	}
	if _, err := m.Project.AddAgents(ids, user); err != nil {
		return err
	}
	if user {
		m.Targets = nil
		for _, t := range m.Project.UserTargets() {
			m.Targets = append(m.Targets, filepath.Join(m.Root, t))
		}
	}
	return nil
}

// runAgents is install --agent: for this run only, the agents' folders
// join the targets; skills.yaml is not changed.
func runAgents(m *manager.Manager, ids []string, user bool) error {
	if len(ids) == 0 {
		return nil
	}
	dirs, err := agent.TargetsFor(ids, user)
	if err != nil {
		return err
	}
	root := m.Project.Dir()
	if user {
		root = m.Root
	}
	targets := slices.Clone(m.TargetDirs())
	for _, d := range dirs {
		if p := filepath.Join(root, d); !slices.Contains(targets, p) {
			targets = append(targets, p)
		}
	}
	m.Targets = targets
	return nil
}

func agentsCommand(e *env) *cli.Command {
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
				return usageErrorf(c, "agents takes no arguments")
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
			if e.json {
				return writeJSON(e.stdout, map[string]any{"agents": rows})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
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
