package toolrun

import (
	"context"
	"encoding/json"
	"testing"
)

func TestResultContracts(t *testing.T) {
	needInterp(t, "bash")
	schema := json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"]}`)
	for _, c := range []struct {
		name, body string
		schema     json.RawMessage
		kind       Kind
		code       string
	}{
		{"matches", `echo '{"count": 3}'`, schema, "", ""},
		{"mismatch", `echo '{"count": "three"}'`, schema, InvalidOutput, "INVALID_OUTPUT"},
		{"text with schema", `echo three words here`, schema, InvalidOutput, "INVALID_OUTPUT"},
		{"text without schema", `echo three words here`, nil, "", ""},
		{"error envelope", `echo '{"status":"error","error":{"code":"INVALID_ARGUMENT","message":"no pdf","retriable":false}}'`, nil, ExecutionFailed, "EXECUTION_FAILED"},
		{"skill tools error", `echo '{"error":"rate limited"}'`, schema, ExecutionFailed, "EXECUTION_FAILED"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSkill(t, map[string]file{"h.sh": {body: "cat >/dev/null\n" + c.body + "\n"}})
			res, err := RunTool(context.Background(), Tool{Skill: "s", Dir: dir, Name: "t", Entrypoint: "h.sh", OutputSchema: c.schema}, json.RawMessage(`{}`), Options{})
			if k := kindOf(t, err); k != c.kind {
				t.Fatalf("kind %q (%v), output %s; want %q", k, err, res.Output, c.kind)
			}
			if c.code != "" {
				if env := decodeEnvelope(t, res.Output); env.Error.Code != c.code {
					t.Fatalf("envelope %s; want code %s", res.Output, c.code)
				}
			}
		})
	}
}
