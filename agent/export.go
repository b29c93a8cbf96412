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
// name. With builtins, the load_skill and use_skill tools come first.
func (c *Catalog) ToolDefinitions(host Host, builtins bool) []Definition {
	var defs []Definition
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
		add(t.Name, t.Description, t.InputSchema, t.OutputSchema)
	}
	return defs
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
