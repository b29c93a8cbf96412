package agent

import (
	"encoding/json"
	"fmt"
)

// Host names a tool-calling format ToolDefinitions can produce.
type Host string

// Hosts, as the Universal spec's mapping table names them.
const (
	HostMCP       Host = "mcp"       // {name, description, inputSchema, outputSchema?}
	HostOpenAI    Host = "openai"    // {type: function, function: {name, description, parameters, strict}}
	HostAnthropic Host = "anthropic" // {name, description, input_schema}
	// HostOpenAIResponses is the Responses API's flat function tool:
	// {type: function, name, description, parameters, strict}.
	HostOpenAIResponses Host = "openai-responses"
)

// ParseHost checks a host name given on a command line.
func ParseHost(s string) (Host, error) {
	switch h := Host(s); h {
	case HostMCP, HostOpenAI, HostOpenAIResponses, HostAnthropic:
		return h, nil
	}
	return "", fmt.Errorf("unknown tool format %q; want mcp, openai, openai-responses or anthropic", s)
}

// Definition is one tool in a host's format, ready to marshal.
type Definition any

// MCPTool is a tool as MCP's tools/list shows it: input_schema becomes
// inputSchema.
type MCPTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// OpenAITool is a Chat Completions function tool.
type OpenAITool struct {
	Type     string         `json:"type"` // "function"
	Function OpenAIFunction `json:"function"`
}

// OpenAIFunction is the function of an OpenAITool. Strict is true only when
// the schema already satisfies OpenAI's strict profile (see StrictCompatible).
type OpenAIFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// OpenAIResponsesTool is a Responses API function tool: the function's
// fields sit beside type, not under "function". Strict is set as for
// OpenAIFunction.
type OpenAIResponsesTool struct {
	Type        string          `json:"type"` // "function"
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Strict      bool            `json:"strict"`
}

// AnthropicTool is a Messages API client tool.
type AnthropicTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// ToolDefinitions returns the effective tools in host's format, sorted by
// name. With builtins, the load_skill and use_skill tools come first, and
// declared tools of those names are left out.
// Tools the host would refuse (see CheckTool) are left out, or lose their
// output schema, and returned as unfit: one bad definition makes hosts
// refuse the whole request, and with it every other tool.
func (c *Catalog) ToolDefinitions(host Host, builtins bool) (defs []Definition, unfit []Unfit) {
	add := func(name, desc string, in, out json.RawMessage) {
		in = InputSchema(in)
		switch host {
		case HostOpenAI:
			defs = append(defs, OpenAITool{Type: "function", Function: OpenAIFunction{
				Name: name, Description: desc, Parameters: in, Strict: StrictCompatible(in)}})
		case HostOpenAIResponses:
			defs = append(defs, OpenAIResponsesTool{Type: "function", Name: name, Description: desc, Parameters: in, Strict: StrictCompatible(in)})
		case HostAnthropic:
			defs = append(defs, AnthropicTool{Name: name, Description: desc, InputSchema: in})
		default:
			defs = append(defs, MCPTool{Name: name, Description: desc, InputSchema: in, OutputSchema: out})
		}
	}
	if builtins {
		for _, b := range c.Builtins() {
			add(b.Name, b.Description, b.InputSchema, nil)
		}
	}
	for _, t := range c.Tools {
		if builtins && (t.Name == LoadSkillTool || t.Name == UseSkillTool) {
			// Two tools of one name: hosts refuse the request, or take
			// the skill's for the built-in.
			unfit = append(unfit, Unfit{Tool: t.Name, Skill: t.Skill.Name, LeftOut: true, Reason: "the name is the built-in " + t.Name + " tool"})
			continue
		}
		out := t.OutputSchema
		if u := CheckTool(host, t); u != nil {
			unfit = append(unfit, *u)
			if u.LeftOut {
				continue
			}
			out = nil
		}
		add(t.Name, t.Description, t.InputSchema, out)
	}
	return defs, unfit
}

// Unfit is a declared tool that a host cannot take as declared.
type Unfit struct {
	Tool, Skill string
	// LeftOut is true when the tool cannot be offered at all, false when
	// it is offered without its output schema.
	LeftOut bool
	Reason  string
}

func (u Unfit) String() string {
	if u.LeftOut {
		return fmt.Sprintf("tool %q of skill %q is not served: %s", u.Tool, u.Skill, u.Reason)
	}
	return fmt.Sprintf("tool %q of skill %q is served without its output schema: %s", u.Tool, u.Skill, u.Reason)
}

// CheckTool reports what of t host would refuse, or nil: a name outside
// the host's tool-name alphabet and length (MCP: 1-128 of A-Z a-z 0-9 _ -
// and .; OpenAI and Anthropic: 1-64 of A-Z a-z 0-9 _ and -), or an input
// schema that is not of type object, leave the tool out; an output schema
// that is not of type object (which MCP requires; the MCP TypeScript SDK
// refuses a whole tools/list for one), or that clients may not compile
// (clientProblem), is dropped. The result check
// (toolrun) still holds results to the declared output schema.
func CheckTool(host Host, t Tool) *Unfit {
	u := &Unfit{Tool: t.Name, Skill: t.Skill.Name, LeftOut: true}
	if err := CheckToolName(host, t.Name); err != nil {
		u.Reason = err.Error()
		return u
	}
	if !objectSchema(InputSchema(t.InputSchema)) {
		u.Reason = "its input schema is not of type object, which " + host.title() + " needs"
		return u
	}
	if host == HostMCP && len(t.OutputSchema) > 0 && string(t.OutputSchema) != "null" {
		if !objectSchema(t.OutputSchema) {
			u.LeftOut, u.Reason = false, "MCP needs an output schema of type object"
			return u
		}
		if p := clientProblem(t.OutputSchema); p != "" {
			u.LeftOut, u.Reason = false, "MCP clients may not compile it (the TypeScript SDK then fails the whole tools/list): "+p
			return u
		}
	}
	return nil
}

// CheckToolName reports whether host takes name as a tool name.
func CheckToolName(host Host, name string) error {
	max, dot := 64, false
	if host == HostMCP || host == "" {
		max, dot = 128, true
	}
	if name == "" || len(name) > max {
		return fmt.Errorf("%s takes tool names of 1 to %d characters", host.title(), max)
	}
	for _, r := range name {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || dot && r == '.' {
			continue
		}
		return fmt.Errorf("%s does not take %q in a tool name", host.title(), r)
	}
	return nil
}

// title names the host in messages.
func (h Host) title() string {
	switch h {
	case HostOpenAI, HostOpenAIResponses:
		return "OpenAI"
	case HostAnthropic:
		return "Anthropic"
	}
	return "MCP"
}

// objectSchema reports whether schema's root is of type object.
func objectSchema(schema json.RawMessage) bool {
	var probe struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(schema, &probe) == nil && probe.Type == "object"
}

// emptyObject is the schema of a tool that declares no parameters.
var emptyObject = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// InputSchema returns s, or a schema for an object without properties when
// s is empty, so every host sees an object schema.
func InputSchema(s json.RawMessage) json.RawMessage {
	if len(s) == 0 || string(s) == "null" {
		return emptyObject
	}
	return s
}

// StrictCompatible reports whether schema can be sent to OpenAI with
// strict: true unchanged: every object schema in it sets
// additionalProperties: false and lists all of its properties as required,
// and it uses no keyword strict mode rejects (allOf, oneOf, not,
// if/then/else, patternProperties, dependentSchemas). Optional values must
// be written as nullable unions, as the Universal spec's strict profile
// says.
func StrictCompatible(schema json.RawMessage) bool {
	var v any
	if json.Unmarshal(InputSchema(schema), &v) != nil {
		return false
	}
	root, ok := v.(map[string]any)
	return ok && root["type"] == "object" && strictNode(root)
}

func strictNode(n map[string]any) bool {
	for _, k := range []string{"allOf", "oneOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas", "unevaluatedProperties"} {
		if _, ok := n[k]; ok {
			return false
		}
	}
	props, hasProps := n["properties"].(map[string]any)
	if isObject(n) || hasProps {
		if ap, ok := n["additionalProperties"].(bool); !ok || ap {
			return false
		}
		req := map[string]bool{}
		list, _ := n["required"].([]any)
		for _, r := range list {
			if s, ok := r.(string); ok {
				req[s] = true
			}
		}
		for k := range props {
			if !req[k] {
				return false
			}
		}
	}
	var subs []any
	for _, p := range props {
		subs = append(subs, p)
	}
	for _, k := range []string{"$defs", "definitions"} {
		if m, ok := n[k].(map[string]any); ok {
			for _, s := range m {
				subs = append(subs, s)
			}
		}
	}
	if items, ok := n["items"]; ok {
		subs = append(subs, items)
	}
	for _, k := range []string{"anyOf", "prefixItems"} {
		if l, ok := n[k].([]any); ok {
			subs = append(subs, l...)
		}
	}
	for _, s := range subs {
		switch m := s.(type) {
		case map[string]any:
			if !strictNode(m) {
				return false
			}
		case bool:
			// true/false schemas carry no object shape
		default:
			return false
		}
	}
	return true
}

// isObject reports whether a schema node's type is or includes "object".
func isObject(n map[string]any) bool {
	switch t := n["type"].(type) {
	case string:
		return t == "object"
	case []any:
		for _, x := range t {
			if x == "object" {
				return true
			}
		}
	}
	return false
}
