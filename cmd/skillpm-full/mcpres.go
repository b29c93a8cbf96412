package main

import (
	"context"
	"os"
	"time"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/skillpm/skillpm/agent"
	"github.com/urfave/cli/v2"
)

// watchFlag is how often 'skillpm mcp' looks for installed or removed skills.
func watchFlag() cli.Flag {
	return &cli.DurationFlag{Name: "watch-interval", Value: 2 * time.Second,
		Usage: "how often to look for installed, updated or removed skills and tell the client (resources/list_changed); 0 turns it off"}
}

// reloadSkills rebuilds the skill set 'skillpm mcp' serves as resources,
// with the same folders and filters as at start, and without the warnings
// already given then.
func reloadSkills(c *cli.Context) func(context.Context) ([]*agent.Skill, error) {
	return func(ctx context.Context) ([]*agent.Skill, error) {
		project, err := command.ProjectDir(c)
		if err != nil {
			return nil, err
		}
		home, _ := os.UserHomeDir()
		opts := agent.Options{Project: project, Home: home}
		if !c.Bool("no-index") {
			opts.IndexPath, _ = command.IndexPath()
		}
		cat, err := agent.Build(ctx, opts)
		if err != nil {
			return nil, err
		}
		if cat, err = cat.Filter(c.StringSlice("include"), c.StringSlice("exclude")); err != nil {
			return nil, err
		}
		cat, _ = cat.ForHost(c.String("host"))
		return cat.Skills, nil
	}
}
