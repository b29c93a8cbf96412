package verify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
)

// TestSigstoreJS checks that another sigstore client, sigstore-js
// (@sigstore/verify, installed with @sigstore/cli), verifies a key-based
// bundle skillpm writes, offline, and refuses it with another key or for
// another digest. Opt-in: it needs node and the npm package.
//
//	npm install --prefix /tmp/sjs @sigstore/cli
//	SKILLPM_TEST_SIGSTORE_JS=/tmp/sjs/node_modules go test ./verify -run SigstoreJS
func TestSigstoreJS(t *testing.T) {
	modules := os.Getenv("SKILLPM_TEST_SIGSTORE_JS")
	if modules == "" {
		t.Skip("set SKILLPM_TEST_SIGSTORE_JS to a node_modules folder holding @sigstore/cli")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	dir := t.TempDir()
	kp, pub := testKey(t, dir, "good")
	_, otherPub := testKey(t, dir, "other")
	d := digest.FromString("manifest")
	b := filepath.Join(dir, "bundle.json")
	if err := os.WriteFile(b, keySign(t, kp, d, PredicateSign, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := filepath.Abs("testdata/sigstore-js-verify.js")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, key string
		digest    digest.Digest
		ok        bool
	}{
		{"right key and digest", pub, d, true},
		{"another key", otherPub, d, false},
		{"another digest", pub, digest.FromString("other"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(node, script, b, tc.key, tc.digest.String())
			cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
			out, err := cmd.CombinedOutput()
			if got := err == nil; got != tc.ok {
				t.Fatalf("sigstore-js accepted = %v; want %v\n%s", got, tc.ok, out)
			}
			if tc.ok && !strings.Contains(string(out), "verified "+PredicateSign) {
				t.Errorf("output = %q", out)
			}
		})
	}
}
