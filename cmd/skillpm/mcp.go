package main

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/toolrun"
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
use_skill (run a script from a skill folder) and select_skills (the Universal
spec's deterministic selection, as 'skillpm select'), and sends the skills
list as its instructions. Skills it skips or serves despite lint errors are
named on stderr. Tool failures come back as tool results with isError set.
Logs go to stderr. The skill set is read once, at start. When stdin ends,
requests already read are answered before the server exits, so a scripted
session ('skillpm mcp < requests.jsonl') gets every response.

Configure it in an MCP client as the command "skillpm" with arguments
["mcp", "-C", "/path/to/project"].

Examples:
  skillpm mcp
  skillpm mcp -C ~/src/app --timeout 2m
  skillpm mcp --host mcp --include 'pdf-*' --max-output 8192
  npx @modelcontextprotocol/inspector --cli skillpm mcp --method tools/list`,
		Flags: append(append(runFlags(), maxOutputFlag(), hostFlag()), append(filterFlags(), catalogFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "mcp takes no arguments")
			}
			cat, err := prepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			for _, cf := range cat.Conflicts {
				e.logf("warning: %s", cf)
			}
			opts := agent.ServerOptions{Version: version, Run: runOptions(e, c), Warn: func(m string) { e.logf("warning: %s", m) }}
			srv := agent.NewServer(cat, opts)
			e.debugf("mcp: serving %d skills, %d tools on stdio", len(cat.Skills), len(cat.Tools))
			t := &drainTransport{
				Transport: &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}},
				limit:     drainLimit(cat, opts.Run.Timeout),
			}
			err = srv.Run(c.Context, t)
			if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
				return nil
			}
			return err
		},
	}
}

// drainTransport delays the end of input until every request read so far
// has been answered (or limit has passed): a client that writes its
// requests and closes stdin still gets all the responses. Without it the
// SDK closes the session at EOF and drops calls in flight.
type drainTransport struct {
	mcp.Transport
	limit time.Duration
}

// Connect wraps the underlying connection.
func (t *drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, limit: t.limit, pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{}, 1)}, nil
}

type drainConn struct {
	mcp.Connection
	limit   time.Duration
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // calls read and not yet answered
	changed chan struct{}       // signalled when pending shrinks
}

// Read records calls; at the end of input it waits for them to be answered.
func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.IsCall() {
		c.mu.Lock()
		c.pending[req.ID] = true
		c.mu.Unlock()
	}
	if err != nil {
		deadline := time.After(c.limit)
		for {
			c.mu.Lock()
			n := len(c.pending)
			c.mu.Unlock()
			if n == 0 {
				break
			}
			select {
			case <-c.changed:
			case <-deadline:
				return msg, err
			case <-ctx.Done():
				return msg, err
			}
		}
	}
	return msg, err
}

// Write records answers.
func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
	return err
}

// drainLimit bounds the wait at the end of input: the longest a tool may
// run, plus a margin.
func drainLimit(cat *agent.Catalog, timeout time.Duration) time.Duration {
	if timeout <= 0 {
		timeout = toolrun.DefaultTimeout
	}
	for _, t := range cat.Tools {
		timeout = max(timeout, time.Duration(t.TimeoutSeconds)*time.Second)
	}
	return timeout + 5*time.Second
}

// nopWriteCloser keeps the server from closing our stdout.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
