package mcpserver

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

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
//
// The hints that promise less (readOnlyHint, idempotentHint,
// destructiveHint and openWorldHint false) are given only when enforced:
// the sandbox holds the tool to what its skill declares. Clients may run
// a read-only tool without asking, and a skill's word alone (sandbox off,
// or a platform that cannot confine) must not earn that.
func Annotations(t agent.Tool, enforced bool) *mcp.ToolAnnotations {
	a := &mcp.ToolAnnotations{}
	gate := t.Confirmation()
	p := t.Skill.Permissions
	yes, no := true, false
	if p != nil && enforced {
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
// call's input responses, when it answers the question asked about this
// very call (asked.answered); an input request when the client supports
// elicitation; otherwise a refusal that says why and how to confirm.
func gate(req *mcp.CallToolRequest, g *toolrun.Confirmation, subject string, opts ServerOptions, asked *questions) (func(context.Context, toolrun.ConfirmRequest) (string, error), *mcp.CallToolResult) {
	if g == nil || opts.Run.Confirm != nil {
		return opts.Run.Confirm, nil
	}
	if req.Params != nil {
		if ans, ok := req.Params.InputResponses[confirmID]; ok && asked.answered(req.Params) {
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
		Message:         confirmMessage(subject, g),
		RequestedSchema: confirmSchema,
	}
	return nil, &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{confirmID: ask}, RequestState: asked.ask(req.Params)}
}

// maxPrompt bounds the skill's own words in a confirmation request.
const maxPrompt = 500

// confirmMessage is what the user is asked: who asks first, in skillpm's
// words, then the skill's prompt on the same line, its line breaks folded
// and cut to maxPrompt characters, so that a prompt cannot write a line
// that seems to name another tool or skill, or push skillpm's words out
// of sight.
func confirmMessage(subject string, g *toolrun.Confirmation) string {
	p := strings.Join(strings.Fields(g.Prompt), " ")
	if r := []rune(p); len(r) > maxPrompt {
		p = string(r[:maxPrompt-1]) + "…"
	}
	return fmt.Sprintf("%s asks for confirmation (level %s): %s", subject, g.Level, p)
}

// maxQuestions bounds the questions a server keeps waiting for answers.
const maxQuestions = 1024

// questions binds each confirmation the server asks for to the call it
// asks about. The request state sent with the question is a one-time
// nonce and an HMAC of it with the call's tool name and arguments, under
// a key that never leaves the process; an answer counts only with the
// state of an open question about the same call. Without it a client
// could send a gated call with its own "accept" and never ask the user
// (even one that cannot ask: no elicitation), or reuse a "yes" given for
// one call for another; and the audit log would say the user confirmed.
type questions struct {
	key  []byte
	mu   sync.Mutex
	open map[string]bool // nonces asked about and not yet answered
}

func newQuestions() *questions {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read does not fail (Go 1.24)
	return &questions{key: key, open: map[string]bool{}}
}

// ask opens a question about the call p and returns its request state.
func (q *questions) ask(p *mcp.CallToolParamsRaw) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	nonce := hex.EncodeToString(b)
	q.mu.Lock()
	if len(q.open) >= maxQuestions {
		clear(q.open) // questions left unanswered this long are dropped
	}
	q.open[nonce] = true
	q.mu.Unlock()
	return nonce + "." + q.sign(nonce, p)
}

// answered reports whether p carries the state of an open question about
// the same call, and closes it.
func (q *questions) answered(p *mcp.CallToolParamsRaw) bool {
	nonce, mac, ok := strings.Cut(p.RequestState, ".")
	if !ok || !hmac.Equal([]byte(mac), []byte(q.sign(nonce, p))) {
		return false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.open[nonce] {
		return false
	}
	delete(q.open, nonce)
	return true
}

// sign is the HMAC of nonce with the call's tool name and arguments
// (re-encoded, so the client's key order and spacing do not matter).
func (q *questions) sign(nonce string, p *mcp.CallToolParamsRaw) string {
	h := hmac.New(sha256.New, q.key)
	h.Write([]byte(nonce + "\x00"))
	if p != nil {
		h.Write([]byte(p.Name + "\x00"))
		h.Write(canonicalJSON(p.Arguments))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON re-encodes raw with sorted keys and exact numbers; what
// does not parse is kept as it is, and so are arguments with an object
// whose keys repeat or differ only in case: their meaning depends on
// their order (Go's decoding matches keys case-insensitively, the last
// one winning; other parsers take the first), which sorting would lose.
func canonicalJSON(raw json.RawMessage) []byte {
	if ambiguousKeys(raw) {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// ambiguousKeys reports whether an object in raw has two keys equal but
// for case.
func ambiguousKeys(raw []byte) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	type object struct {
		keys    map[string]bool
		wantKey bool
	}
	var open []*object // nil for an array
	for {
		tok, err := d.Token()
		if err != nil {
			return false // the end, or not JSON: kept as it is anyway
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				open = append(open, &object{keys: map[string]bool{}, wantKey: true})
				continue
			case '[':
				open = append(open, nil)
				continue
			}
			open = open[:len(open)-1]
		case string:
			if n := len(open); n > 0 && open[n-1] != nil && open[n-1].wantKey {
				k := strings.ToUpper(strings.ToLower(t))
				if open[n-1].keys[k] {
					return true
				}
				open[n-1].keys[k], open[n-1].wantKey = true, false
				continue
			}
		}
		// A value ended: in an object, a key comes next.
		if n := len(open); n > 0 && open[n-1] != nil {
			open[n-1].wantKey = true
		}
	}
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
