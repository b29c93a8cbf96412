package toolrun

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestSecretsRedacted(t *testing.T) {
	needInterp(t, "bash")
	const secret = "s3cr3t-t0ken-value"
	dir := writeSkill(t, map[string]file{
		"leak.sh": {body: "cat >/dev/null\necho \"key=$API_TOKEN\" >&2\nprintf 'partial %s' \"$API_TOKEN\" >&2\necho \"{\\\"token\\\":\\\"$API_TOKEN\\\"}\"\n"},
		"fail.sh": {body: "cat >/dev/null\necho \"bad token $API_TOKEN\" >&2\nexit 1\n"},
	})
	var live bytes.Buffer
	opts := Options{Env: []string{"PATH=/usr/bin:/bin", "API_TOKEN=" + secret}, AllowEnv: []string{"API_TOKEN"}, Stderr: &live}
	tool := Tool{Skill: "s", Dir: dir, Name: "leak", Entrypoint: "leak.sh", Secrets: []string{"API_TOKEN"}}
	res, err := RunTool(context.Background(), tool, json.RawMessage(`{}`), opts)
	if err != nil {
		t.Fatal(err)
	}
	for what, s := range map[string]string{"output": string(res.Output), "stderr": res.Stderr, "live stderr": live.String()} {
		if strings.Contains(s, secret) || !strings.Contains(s, "[REDACTED:API_TOKEN]") {
			t.Errorf("%s = %q; want the secret replaced by [REDACTED:API_TOKEN]", what, s)
		}
	}
	tool.Entrypoint = "fail.sh"
	res, err = RunTool(context.Background(), tool, json.RawMessage(`{}`), opts)
	if err == nil || strings.Contains(err.Error(), secret) || strings.Contains(string(res.Output), secret) {
		t.Errorf("failure: err %v, output %s; want the secret redacted from both", err, res.Output)
	}
	er, _ := Exec(context.Background(), Script{Skill: "s", Dir: dir, Path: "leak.sh", Secrets: []string{"API_TOKEN"}}, opts)
	if b, _ := json.Marshal(er); strings.Contains(string(b), secret) {
		t.Errorf("exec result %s leaks the secret", b)
	}
}
