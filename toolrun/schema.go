package toolrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/internal/selfschema"
	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// schemaURL names the in-memory input schema in compiler messages.
const schemaURL = "mem:///input_schema.json"

// maxSchemaErrors bounds how many schema violations one message lists.
const maxSchemaErrors = 5

// decodeInput parses the tool input, which must be a JSON object (empty
// input counts as {}). Numbers stay json.Number so they round-trip exactly.
func decodeInput(input json.RawMessage) (map[string]any, *Error) {
	if len(bytes.TrimSpace(input)) == 0 {
		return map[string]any{}, nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(input))
	if err != nil {
		return nil, &Error{Kind: InvalidInput, Msg: "input is not valid JSON", Err: err}
	}
	args, ok := v.(map[string]any)
	if !ok {
		return nil, &Error{Kind: InvalidInput, Msg: fmt.Sprintf("input must be a JSON object, got %s", jsonType(v))}
	}
	return args, nil
}

// validateInput checks args against the tool's JSON Schema (2020-12 unless
// the schema says otherwise). A nil schema accepts any object. External
// $refs are refused: a schema must not make the host read files or URLs.
func validateInput(schema json.RawMessage, args map[string]any) *Error {
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	sch, err := compileSchema(schemaURL, "input", schema)
	var se *selfschema.Error
	if errors.As(err, &se) {
		msg := map[selfschema.Stage]string{selfschema.StageParse: "input schema is not valid JSON", selfschema.StageAdd: "input schema"}[se.Stage]
		if msg == "" {
			msg = "input schema does not compile"
		}
		return &Error{Kind: ExecutionFailed, Msg: msg, Err: se.Err}
	}
	if err != nil {
		return &Error{Kind: ExecutionFailed, Msg: "input schema does not compile", Err: err}
	}
	err = sch.Validate(any(args))
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		return &Error{Kind: InvalidInput, Msg: "invalid input: " + describe(verr)}
	}
	if err != nil {
		return &Error{Kind: InvalidInput, Msg: "invalid input", Err: err}
	}
	return nil
}

// describe flattens a validation error into its leaf violations, each
// naming the property at fault: `property "count": got string, want integer`.
func describe(verr *jsonschema.ValidationError) string {
	p := message.NewPrinter(language.English)
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		m := e.ErrorKind.LocalizedString(p)
		if len(e.InstanceLocation) > 0 {
			m = fmt.Sprintf("property %q: %s", strings.Join(e.InstanceLocation, "/"), m)
		}
		if !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	walk(verr)
	if len(msgs) > maxSchemaErrors {
		msgs = append(msgs[:maxSchemaErrors], fmt.Sprintf("and %d more", len(msgs)-maxSchemaErrors))
	}
	return strings.Join(msgs, "; ")
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}
