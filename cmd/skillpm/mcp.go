package main

import (
	"context"
	"errors"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/urfave/cli/v2"
)

func mcpCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the installed skills to an agent over MCP (stdio)",
		UsageText: `skillpm mcp [options]

Runs a Model Context Protocol server on stdin/stdout until the client closes
the connection. It serves every tool the effective installed skills declare
(input_schema as inputSchema), plus load_skill (a skill's instructions) and
use_skill (run a script from a skill folder), and sends the skills list as
its instructions. Tool failures come back as tool results with isError set.
Logs go to stderr. The skill set is read once, at start.

Configure it in an MCP client as the command "skillpm" with arguments
["mcp", "-C", "/path/to/project"].

Examples:
  skillpm mcp
  skillpm mcp -C ~/src/app --timeout 2m
  npx @modelcontextprotocol/inspector --cli skillpm mcp --method tools/list`,
		Flags: append(runFlags(), catalogFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "mcp takes no arguments")
			}
			cat, err := loadCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			for _, cf := range cat.Conflicts {
				e.logf("warning: %s", cf)
			}
			opts := agent.ServerOptions{Version: version, Run: runOptions(e, c), Warn: func(m string) { e.logf("warning: %s", m) }}
			srv := agent.NewServer(cat, opts)
			e.debugf("mcp: serving %d skills, %d tools on stdio", len(cat.Skills), len(cat.Tools))
			t := &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}}
			err = srv.Run(c.Context, t)
			if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
				return nil
			}
			return err
		},
	}
}

// nopWriteCloser keeps the server from closing our stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
