// Package mcpserver serves a skill catalog (package agent) over the Model
// Context Protocol, for 'skillpm mcp': every declared tool, the load_skill,
// use_skill and select_skills tools, the skills prompt as the server's
// instructions, every file of every skill as a skill:// resource (the MCP
// Skills Extension) kept up to date while the server runs, confirmation of
// gated tools by elicitation, and a Serve loop that answers what was read
// before exiting and stops tools still running on a signal.
//
// It is the only package that links the go-sdk; package agent stays free of
// it so that commands other than 'skillpm mcp' do not pay for it at start.
package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/toolrun"
)

// ServerOptions configures New. The zero value is ready to use.
type ServerOptions struct {
	// Version is the server version reported to clients.
	Version string
	// Run configures every tool and script run (working directory,
	// timeout, output cap, environment).
	Run toolrun.Options
	// Warn, if set, is told about tools left out of the server.
	Warn func(msg string)
	// ConfirmHow tells the user how to confirm gated tools when the
	// client cannot ask (it does not support elicitation) and Run.Confirm
	// is nil; it ends the structured error such calls get.
	ConfirmHow string
	// Resources serves the skills' files (MCP Skills Extension); nil
	// makes a fresh set with default limits. Give the same set to
	// Resources.Watch to follow installs while the server runs.
	Resources *Resources
	// MaxCalls is how many tool and use_skill runs may go on at once;
	// more calls wait for a free slot (or their cancellation). If <= 0,
	// DefaultMaxCalls.
	MaxCalls int
}

// DefaultMaxCalls is ServerOptions.MaxCalls' default: enough for an
// agent's parallel tool calls, and a bound on the processes a client can
// start at once (each run is a process group).
const DefaultMaxCalls = 16

// New returns an MCP server exposing the catalog: every effective
// declared tool (input_schema mapped to inputSchema), plus load_skill and
// use_skill. The skills-as-tools system prompt section is sent as the
// server's instructions. Tool failures are tool results with isError set
// and the error envelope (or the use_skill result, or the load_skill text)
// as their content, never protocol errors, so the model sees them.
//
// Every file of every skill is a resource skill://<name>/<path>, with
// skill://index.json listing the skills, and the server advertises the
// MCP Skills Extension (SkillsExtension) in its capabilities.
//
// A declared tool named load_skill or use_skill, one that MCP does not
// take (agent.CheckTool: a name outside MCP's tool-name rule, an input
// schema that is not of type object) and one the SDK refuses is left out
// and reported through opts.Warn; an output schema that is not of type
// object is left out of the tool's definition, and reported.
func New(c *agent.Catalog, opts ServerOptions) *mcp.Server {
	warn := opts.Warn
	if warn == nil {
		warn = func(string) {}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "skillpm", Version: opts.Version},
		&mcp.ServerOptions{Instructions: c.PromptMarkdown(), Capabilities: Advertise(nil)})
	s.AddReceivingMiddleware(recoverPanics(warn))
	res := opts.Resources
	if res == nil {
		res = NewResources(ResourceOptions{Warn: warn})
	}
	res.Sync(s, c.Skills)
	h := &handlers{c: c, opts: opts, asked: newQuestions(), slots: make(chan struct{}, cmp.Or(max(opts.MaxCalls, 0), DefaultMaxCalls))}

	for _, b := range c.Builtins() {
		s.AddTool(&mcp.Tool{Name: b.Name, Description: b.Description, InputSchema: b.InputSchema}, h.builtin(b.Name))
	}
	addSelectTool(c, s)
	for _, t := range c.Tools {
		if builtinName(t.Name) {
			warn(fmt.Sprintf("tool %q of skill %q is not served: the name is the built-in %s tool", t.Name, t.Skill.Name, t.Name))
			continue
		}
		mt := &mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: agent.InputSchema(t.InputSchema), Annotations: Annotations(t, enforced(opts.Run.Sandbox, t))}
		if len(t.OutputSchema) > 0 {
			mt.OutputSchema = t.OutputSchema
		}
		if u := agent.CheckTool(agent.HostMCP, t); u != nil {
			warn(u.String())
			if u.LeftOut {
				continue
			}
			mt.OutputSchema = nil
		}
		if err := addTool(s, mt, h.tool(t.Name)); err != nil {
			warn(fmt.Sprintf("tool %q of skill %q is not served: %v", t.Name, t.Skill.Name, err))
		}
	}
	return s
}

// enforced reports whether runs under sb hold t to what its skill
// declares (toolrun: a nil *Sandbox is off, an empty mode the default).
func enforced(sb *toolrun.Sandbox, t agent.Tool) bool {
	mode := sandbox.Off
	if sb != nil {
		mode = cmp.Or(sb.Mode, sandbox.Default)
	}
	return sandbox.Describe(mode, agent.Permissions(t.Skill.Permissions)).Enforced
}

// recoverPanics answers a request whose handler panicked with an error,
// and reports the panic, instead of letting it end the process: a server
// serves many skills to a client it does not control, and a bug that one
// skill's declaration or one call's arguments hit must not stop the calls
// of the others.
func recoverPanics(warn func(string)) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if r := recover(); r != nil {
					warn(fmt.Sprintf("internal error answering %s: %v\n%s", method, r, debug.Stack()))
					res, err = nil, fmt.Errorf("internal error in skillpm answering %s: %v", method, r)
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// addTool adds t to s, or returns why the SDK refused it. The SDK panics
// on a definition it cannot serve (an x-mcp-header annotation on a
// property that is not a string, number or boolean, say); a tool is what
// a skill declares, so one bad skill must not stop the server.
func addTool(s *mcp.Server, t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.AddTool(t, h)
	return nil
}

// arguments returns a call's arguments, {} when there are none.
func arguments(req *mcp.CallToolRequest) json.RawMessage {
	if req.Params == nil || len(req.Params.Arguments) == 0 || string(req.Params.Arguments) == "null" {
		return json.RawMessage("{}")
	}
	return req.Params.Arguments
}

func textResult(text string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isErr}
}

// handlers serve the tools of one server.
type handlers struct {
	c     *agent.Catalog
	opts  ServerOptions
	asked *questions
	slots chan struct{} // one per run going on
}

// acquire waits for a free run slot, or for ctx, and returns its release.
func (h *handlers) acquire(ctx context.Context) (func(), error) {
	select {
	case h.slots <- struct{}{}:
		return func() { <-h.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("cancelled while waiting for one of the %d runs going on to end: %w", cap(h.slots), context.Cause(ctx))
	}
}

// tool calls a declared tool. A JSON object result is also given as
// structured content.
func (h *handlers) tool(name string) mcp.ToolHandler {
	c, opts := h.c, h.opts
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		run := opts.Run
		if t, err := c.Tool(name); err == nil {
			confirm, ask := gate(req, t.Confirmation(), fmt.Sprintf("tool %q of skill %q", t.Name, t.Skill.Name), opts, h.asked)
			if ask != nil {
				return ask, nil
			}
			run.Confirm = confirm
		}
		release, err := h.acquire(ctx)
		if err != nil {
			return textResult(err.Error(), true), nil
		}
		defer release()
		res, err := c.CallTool(ctx, name, arguments(req), run)
		if res == nil { // the tool vanished: cannot happen for a served tool
			return textResult(err.Error(), true), nil
		}
		r := textResult(string(res.Output), err != nil)
		if err == nil && len(res.Output) > 0 && res.Output[0] == '{' {
			r.StructuredContent = res.Output
		}
		return r, nil
	}
}

// builtin serves load_skill and use_skill.
func (h *handlers) builtin(name string) mcp.ToolHandler {
	c, opts := h.c, h.opts
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		run := opts.Run
		var in struct {
			Skill  string   `json:"skill"`
			Script string   `json:"script"`
			Args   []string `json:"args"`
		}
		if err := json.Unmarshal(arguments(req), &in); err != nil {
			return textResult(fmt.Sprintf("invalid arguments for %s: %v", name, err), true), nil
		}
		if name == agent.LoadSkillTool {
			text, err := c.LoadSkill(in.Skill)
			return textResult(text, err != nil), nil
		}
		if sk, err := c.Skill(in.Skill); err == nil {
			confirm, ask := gate(req, sk.ScriptConfirmation(in.Script), fmt.Sprintf("script %q of skill %q", in.Script, sk.Name), opts, h.asked)
			if ask != nil {
				return ask, nil
			}
			run.Confirm = confirm
		}
		release, err := h.acquire(ctx)
		if err != nil {
			return textResult(err.Error(), true), nil
		}
		defer release()
		res, err := c.UseSkill(ctx, in.Skill, in.Script, in.Args, run)
		out, merr := json.Marshal(res)
		if merr != nil {
			return nil, merr
		}
		r := textResult(string(out), err != nil)
		r.StructuredContent = json.RawMessage(out)
		return r, nil
	}
}
