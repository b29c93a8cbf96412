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
// another digest. It needs node and the npm packages pinned in
// scripts/npm-tools, which scripts/test installs and points
// SKILLPM_TEST_SIGSTORE_JS at; by hand:
//
//	scripts/test tools   # prints SKILLPM_TEST_SIGSTORE_JS=...
//	SKILLPM_TEST_SIGSTORE_JS=... go test ./verify -run SigstoreJS
//
// Without them it is skipped, except under CI, where it fails.
func TestSigstoreJS(t *testing.T) {
	modules := os.Getenv("SKILLPM_TEST_SIGSTORE_JS")
	node, err := exec.LookPath("node")
	switch {
	case modules != "" && err == nil:
	case os.Getenv("CI") != "" && os.Getenv("CI") != "false" && os.Getenv("CI") != "0":
		t.Fatalf("CI is set but the sigstore-js interop test cannot run: SKILLPM_TEST_SIGSTORE_JS=%q, node: %v (scripts/test provides both)", modules, err)
	case modules == "":
		t.Skip("set SKILLPM_TEST_SIGSTORE_JS to a node_modules folder holding @sigstore/cli (scripts/test tools)")
	default:
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
