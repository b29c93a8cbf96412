package main

import (
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/manager"
	"github.com/urfave/cli/v2"
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
			return nil, &command.UsageError{Msg: "--agent: " + err.Error(), Hint: "'skillpm agents' lists the agents and the folders each reads"}
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
