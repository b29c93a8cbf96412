package main

import (
	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/registry"
)

// parseRef parses a reference argument, as a usage error when malformed.
func parseRef(c *cli.Context, s string) (registry.Reference, error) {
	r, err := registry.ParseReference(s)
	if err != nil {
		return r, command.UsageErrorf(c, "%v", err)
	}
	return r, nil
}
