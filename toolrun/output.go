package toolrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/skillpm/skillpm/internal/selfschema"
	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// outputSchemaURL names the in-memory output schema in compiler messages.
const outputSchemaURL = "mem:///output_schema.json"

// checkOutput holds a successful handler's output to the result contract:
// a result that is an error envelope ({"status":"error",...} or Skill
// Tools' {"error": "..."}) is a failed call; with an output schema, the
// result must be JSON (not text a bash handler printed) and match it.
func checkOutput(schema, out json.RawMessage, isText bool) *Error {
	if msg, ok := errorEnvelope(out); ok {
		return &Error{Kind: ExecutionFailed, Msg: "handler returned an error: " + msg}
	}
	if len(bytes.TrimSpace(schema)) == 0 {
		return nil
	}
	if isText {
		return &Error{Kind: InvalidOutput, Msg: "handler printed text, not the JSON its output_schema declares"}
	}
	sch, err := compileSchema(outputSchemaURL, "output", schema)
	var se *selfschema.Error
	if errors.As(err, &se) && se.Stage == selfschema.StageParse {
		return &Error{Kind: ExecutionFailed, Msg: "output schema is not valid JSON", Err: se.Err}
	}
	if err != nil {
		return &Error{Kind: ExecutionFailed, Msg: "output schema does not compile", Err: err}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		return &Error{Kind: InvalidOutput, Msg: "result is not JSON", Err: err}
	}
	err = sch.Validate(v)
	var verr *jsonschema.ValidationError
	if errors.As(err, &verr) {
		return &Error{Kind: InvalidOutput, Msg: "result does not match the output schema: " + describe(verr)}
	}
	if err != nil {
		return &Error{Kind: InvalidOutput, Msg: "result does not match the output schema", Err: err}
	}
	return nil
}

// errorEnvelope reports whether out is an error result, and its message.
func errorEnvelope(out json.RawMessage) (string, bool) {
	if len(out) == 0 || out[0] != '{' {
		return "", false
	}
	var v struct {
		Status string          `json:"status"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(out, &v) != nil || len(v.Error) == 0 || string(v.Error) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(v.Error, &s) == nil { // Skill Tools: {"error": "..."}
		return s, true
	}
	if v.Status != "error" {
		return "", false
	}
	var body struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	json.Unmarshal(v.Error, &body)
	return strings.TrimSpace(body.Code + ": " + body.Message), true
}
