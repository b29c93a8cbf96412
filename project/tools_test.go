package project

import (
	"strings"
	"testing"
)

func TestParseToolsEnv(t *testing.T) {
	m, err := Parse([]byte("skills:\n  deploy: ^1\ntools:\n  env:\n    deploy: [DEPLOY_REGION]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Tools.Env.Allows("deploy", "DEPLOY_REGION") {
		t.Errorf("Tools.Env = %v; want DEPLOY_REGION granted to deploy", m.Tools.Env)
	}
	for body, want := range map[string]string{
		"tools:\n  env:\n    deploy: [DEPLOY-REGION]\n": `tools.env: skill "deploy": "DEPLOY-REGION" is not an environment variable name`,
		"tools:\n  env:\n    ../x: [A]\n":               `tools.env: "../x" is not a valid skill name`,
		"tools:\n  envs:\n    deploy: [A]\n":            "field envs not found",
	} {
		if _, err := Parse([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v; want an error containing %q", body, err, want)
		}
	}
}
