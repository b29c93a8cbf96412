package main

import (
	"context"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/skillpm/skillpm/agent/mcpserver"
	"github.com/urfave/cli/v2"
)

func mcpCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve the installed skills to an agent over MCP (stdio)",
		UsageText: `skillpm mcp [options]

Runs a Model Context Protocol server on stdin/stdout until the client closes
the connection. It serves every tool the effective installed skills declare
(input_schema as inputSchema), plus load_skill (a skill's instructions) and
use_skill (run a script from a skill folder) and select_skills (the Universal
spec's deterministic selection, as 'skillpm select'), and sends the skills
list as its instructions. It speaks the MCP Skills Extension
(io.modelcontextprotocol/skills): every file of every skill is a resource
skill://<name>/<path> (binary files as blobs), skill://index.json lists the
skills, and clients get notifications/resources/list_changed when skills
are installed, updated or removed while it runs (--watch-interval). Skills it skips or serves despite lint errors are
named on stderr. Tool failures come back as tool results with isError set.
Logs go to stderr. Tools are read once, at start. When stdin ends,
requests already read are answered before the server exits, so a scripted
session ('skillpm mcp < requests.jsonl') gets every response; calls still
running --drain (default 5s) after the end of input are stopped (exit 12). At most
--max-calls (default 16) tools and scripts run at once; further calls wait
for a slot. On SIGTERM or
Ctrl-C, calls in flight are stopped at once (each tool's whole process
group gets SIGTERM, then SIGKILL after 2s) and the server exits, with code
130 if it stopped any; a second signal kills them outright and exits.

Each run is limited by --timeout: a tool's own timeout_seconds applies
only when lower (without --timeout, up to 10m). A skill receives the
secrets it declares only when allowed (--env NAME, or tools.env in the
user config; see README "Secrets").

Configure it in an MCP client as the command "skillpm" with arguments
["mcp", "-C", "/path/to/project"].

Examples:
  skillpm mcp
  skillpm mcp -C ~/src/app --timeout 2m
  skillpm mcp --host mcp --include 'pdf-*' --max-output 8192
  npx @modelcontextprotocol/inspector --cli skillpm mcp --method tools/list
  npx @modelcontextprotocol/inspector --cli skillpm mcp --method resources/read --uri skill://index.json`,
		Flags: append(append(command.RunFlags(), command.MaxOutputFlag(), command.HostFlag(), watchFlag(),
			&cli.DurationFlag{Name: "drain", Value: mcpserver.DefaultDrain, Usage: "when stdin ends, let calls already read run this long before stopping them"},
			&cli.IntFlag{Name: "max-calls", Value: mcpserver.DefaultMaxCalls, Usage: "run at most `N` tools and scripts at once; further calls wait"}),
			append(command.FilterFlags(), command.CatalogFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return command.UsageErrorf(c, "mcp takes no arguments")
			}
			cat, err := command.PrepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			for _, cf := range cat.Conflicts {
				e.Logf("warning: %s", cf)
			}
			run, err := command.RunOptions(e, c)
			if err != nil {
				return err
			}
			warn := func(m string) { e.Logf("warning: %s", command.TermLine(m)) } // one line each: file names are a skill's to choose
			res := mcpserver.NewResources(mcpserver.ResourceOptions{Warn: warn})
			if c.Int("max-calls") <= 0 {
				return command.UsageErrorf(c, "--max-calls %d must be positive", c.Int("max-calls"))
			}
			opts := mcpserver.ServerOptions{Version: command.Version, Run: run, Warn: warn, Resources: res, MaxCalls: c.Int("max-calls"),
				ConfirmHow: "start the server with skillpm mcp --yes to confirm gated tools up front"}
			srv := mcpserver.New(cat, opts)
			if every := c.Duration("watch-interval"); every > 0 {
				ctx, stop := context.WithCancel(c.Context)
				defer stop()
				go res.Watch(ctx, srv, reloadSkills(c), every)
			}
			e.Debugf("mcp: serving %d skills, %d tools on stdio", len(cat.Skills), len(cat.Tools))
			t := mcpserver.StdioTransport(e.Stdin, e.Stdout)
			if c.Duration("drain") <= 0 {
				return command.UsageErrorf(c, "--drain %s must be positive", c.Duration("drain"))
			}
			return mcpserver.Serve(c.Context, srv, t, mcpserver.ServeOptions{Drain: c.Duration("drain")})
		},
	}
}
