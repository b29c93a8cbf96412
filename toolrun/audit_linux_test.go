//go:build linux

package toolrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestAuditLogFields runs a confirmed tool and a denied one and checks
// every field of their audit lines, and that the declared secret's value
// (which the denied handler puts in the path it tries to read, and prints)
// is in neither.
func TestAuditLogFields(t *testing.T) {
	const secret = "s3cr3t-value-4242"
	opts, home := confined(t, "")
	opts.Env = append(opts.Env, "API_TOKEN="+secret)
	opts.AllowEnv = []string{"API_TOKEN"}
	var log bytes.Buffer
	opts.Audit = NewAuditLog(&log, "mcp")
	opts.Confirm = func(context.Context, ConfirmRequest) (string, error) { return "elicitation", nil }
	dir := writeSkill(t, map[string]file{"scripts/h.sh": {body: "#!/bin/bash\necho \"token $API_TOKEN\" >&2\nread x < \"" + home + "/$API_TOKEN\"\n", mode: 0o755}})
	origin := Origin{Version: "1.2.3", Manifest: "sha256:" + strings.Repeat("a", 64), Tree: "sha256:" + strings.Repeat("b", 64)}
	tool := Tool{Skill: "leaky", Dir: dir, Name: "peek", Entrypoint: "scripts/h.sh", Permissions: universal,
		Secrets: []string{"API_TOKEN"}, Origin: origin, Confirm: &Confirmation{Level: ConfirmAlways, Prompt: "Peek?"}}
	if err := os.WriteFile(home+"/"+secret, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := RunTool(context.Background(), tool, json.RawMessage(`{}`), opts); KindOf(err) != PermissionDenied {
		t.Fatalf("err = %v; want PermissionDenied", err)
	}
	ok := tool
	ok.Entrypoint = "scripts/ok.sh"
	ok.Dir = writeSkill(t, map[string]file{"scripts/ok.sh": {body: "#!/bin/bash\necho '{}'\n", mode: 0o755}})
	if _, err := RunTool(context.Background(), ok, json.RawMessage(`{}`), opts); err != nil {
		t.Fatal(err)
	}
	if _, err := Exec(context.Background(), Script{Skill: "leaky", Dir: ok.Dir, Path: "scripts/ok.sh", Origin: origin}, opts); err != nil {
		t.Fatal(err)
	}

	if strings.Contains(log.String(), secret) {
		t.Fatalf("the secret's value is in the audit log:\n%s", log.String())
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d audit lines; want 3:\n%s", len(lines), log.String())
	}
	for i, l := range lines {
		var r map[string]any
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		for k, want := range map[string]any{"caller": "mcp", "skill": "leaky", "version": "1.2.3", "manifest": origin.Manifest, "tree": origin.Tree, "sandbox": "default"} {
			if r[k] != want {
				t.Errorf("line %d: %s = %v; want %v", i, k, r[k], want)
			}
		}
		for _, k := range []string{"time", "duration_ms", "exit"} {
			if _, ok := r[k]; !ok {
				t.Errorf("line %d: no %s", i, k)
			}
		}
	}
	var denied, good, script AuditRecord
	json.Unmarshal([]byte(lines[0]), &denied)
	json.Unmarshal([]byte(lines[1]), &good)
	json.Unmarshal([]byte(lines[2]), &script)
	if denied.Tool != "peek" || denied.Error != PermissionDenied || !strings.Contains(denied.Denied, "[REDACTED:API_TOKEN]") || denied.Confirmation != "elicitation" || denied.ExitCode == 0 {
		t.Errorf("denied run: %+v; want tool peek, PermissionDenied naming the redacted path, confirmation elicitation, non-zero exit", denied)
	}
	if good.Error != "" || good.ExitCode != 0 || good.Confirmation != "elicitation" {
		t.Errorf("good run: %+v", good)
	}
	if script.Script != "scripts/ok.sh" || script.Tool != "" || script.Confirmation != "" {
		t.Errorf("script run: %+v; want the script and no confirmation", script)
	}
}
