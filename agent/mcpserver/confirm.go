package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/toolrun"
)

// Annotations returns the MCP behaviour hints of t, derived from
// what its skill declares and from its confirmation gate:
//
//   - readOnlyHint: the skill declares permissions with no filesystem
//     writes and no network, and the tool is not gated as a destructive
//     write; such a tool is also idempotentHint and not destructiveHint;
//   - destructiveHint: true for a tool gated as destructive_writes (or
//     always); left unset (the protocol's default, true) when the skill
//     may write;
//   - openWorldHint: true when the skill declares outbound hosts or the
//     tool is gated as external_network, false when it declares no
//     network; unset for skills that declare nothing.
func Annotations(t agent.Tool) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{}
	gate := t.Confirmation()
	p := t.Skill.Permissions
	yes, no := true, false
	if p != nil {
		if len(p.Network.Outbound) > 0 {
			a.OpenWorldHint = &yes
		} else {
			a.OpenWorldHint = &no
		}
		if len(p.Filesystem.Write) == 0 && len(p.Network.Outbound) == 0 && (gate == nil || gate.Level == toolrun.ConfirmExternalNetwork) {
			a.ReadOnlyHint, a.IdempotentHint = true, true
			a.DestructiveHint = &no
		}
	}
	if gate != nil {
		switch gate.Level {
		case toolrun.ConfirmExternalNetwork:
			a.OpenWorldHint = &yes
		default:
			a.ReadOnlyHint, a.IdempotentHint = false, false
			a.DestructiveHint = &yes
		}
	}
	return a
}

// confirmSchema is the elicitation form: one boolean.
var confirmSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"confirm": map[string]any{"type": "boolean", "title": "Run it", "description": "Confirm to run the tool; leave unchecked or decline to refuse."},
	},
	"required": []string{"confirm"},
}

// confirmID is the key of the confirmation in a call's input requests.
const confirmID = "skillpm-confirm"

// gate decides, for one MCP call of a tool or script behind gate, how it
// is confirmed. It returns the Confirm function for the run, or a result
// to send instead of running: the multi round-trip input request
// (elicitation) that asks the user. The go-sdk client fulfils that and
// calls again with the answer in InputResponses; for clients on older
// protocol versions the SDK's server middleware sends elicitation/create
// itself and calls the handler again with the answer.
//
// Order: the server's own Confirm (skillpm mcp --yes); the answer in the
// call's input responses; an input request when the client supports
// elicitation; otherwise a refusal that says why and how to confirm.
func gate(req *mcp.CallToolRequest, g *toolrun.Confirmation, subject string, opts ServerOptions) (func(context.Context, toolrun.ConfirmRequest) (string, error), *mcp.CallToolResult) {
	if g == nil || opts.Run.Confirm != nil {
		return opts.Run.Confirm, nil
	}
	if req.Params != nil {
		if ans, ok := req.Params.InputResponses[confirmID]; ok {
			return answered(ans), nil
		}
	}
	if req.Session == nil || !canElicit(req.Session) {
		msg := "the MCP client cannot ask the user (it does not support elicitation)"
		if opts.ConfirmHow != "" {
			msg += "; " + opts.ConfirmHow
		}
		return func(context.Context, toolrun.ConfirmRequest) (string, error) { return "", errors.New(msg) }, nil
	}
	ask := &mcp.ElicitParams{
		Mode:            "form",
		Message:         fmt.Sprintf("%s\n\n(%s, confirmation level %s)", g.Prompt, subject, g.Level),
		RequestedSchema: confirmSchema,
	}
	return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{confirmID: ask}}
}

// answered returns the Confirm function for a call that carries the
// user's answer.
func answered(ans mcp.InputResponse) func(context.Context, toolrun.ConfirmRequest) (string, error) {
	return func(context.Context, toolrun.ConfirmRequest) (string, error) {
		res, ok := ans.(*mcp.ElicitResult)
		if !ok {
			return "", fmt.Errorf("%w (the answer to the confirmation is not an elicitation result)", toolrun.ErrDeclined)
		}
		if res.Action == "accept" {
			if v, _ := res.Content["confirm"].(bool); v {
				return "elicitation", nil
			}
		}
		return "", fmt.Errorf("%w (elicitation: %s)", toolrun.ErrDeclined, res.Action)
	}
}

// canElicit reports whether the client advertised elicitation.
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}
