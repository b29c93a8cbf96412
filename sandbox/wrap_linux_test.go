package sandbox

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWrapOwnPolicyOnly: a variable named like the launcher's policy in
// the handler's environment (the launcher's Getenv would take the first)
// does not stand for the policy.
func TestWrapOwnPolicyOnly(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	cmd := exec.Command("/bin/true")
	cmd.Env = []string{"PATH=/usr/bin", policyEnv + `={"rules":[{"path":"/","access":7}],"net":"all"}`}
	if err := Wrap(cmd, Policy{Net: NetNone}, "/proc/self/exe"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, kv := range cmd.Env {
		if strings.HasPrefix(kv, policyEnv+"=") {
			got = append(got, kv)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `"net":"none"`) {
		t.Errorf("policy variables %q; want only the one Wrap set", got)
	}
}
