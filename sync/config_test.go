package sync

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name    string
		yaml    string
		wantErr string // "" for success
	}{
		{"known keys", "from: ghcr.io/up\nto: oci:mirror\npolicy:\n  lint: error\n  signature:\n    keys: [alice.pub]\n", ""},
		{"empty file", "", ""},
		{"misspelt signature", "from: ghcr.io/up\nto: oci:mirror\npolicy:\n  signatures:\n    keys: [alice.pub]\n", "field signatures not found"},
		{"unknown top-level key", "from: ghcr.io/up\nto: oci:mirror\nrepos: [pdf]\n", "field repos not found"},
		{"unknown rule key", "from: ghcr.io/up\nto: oci:mirror\ncontent:\n  - name: pdf\n    version: ^1\n", "field version not found"},
		{"not yaml", "from: [\n", "yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "sync.yaml")
			if err := os.WriteFile(p, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(p)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("LoadConfig: %v; want no error", err)
				}
				if sp := c.Policy.Signature; sp != nil && sp.Keys[0] != filepath.Join(filepath.Dir(p), "alice.pub") {
					t.Errorf("keys[0] = %q; want it relative to sync.yaml", sp.Keys[0])
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("LoadConfig: %v; want ErrConfig containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestLoadConfigAttest(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "sync.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	c, err := LoadConfig(write("attest:\n  key: keys/vetting.key\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "keys", "vetting.key"); c.Attest.Key != want {
		t.Errorf("attest.key = %q; want %q (relative to sync.yaml)", c.Attest.Key, want)
	}
	if _, err := LoadConfig(write("attest:\n  keyless: true\n")); err != nil {
		t.Errorf("keyless: %v", err)
	}
	for _, body := range []string{"attest: {}\n", "attest:\n  key: k\n  keyless: true\n"} {
		if _, err := LoadConfig(write(body)); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "attest needs a private key") {
			t.Errorf("%q: %v; want ErrConfig about attest", body, err)
		}
	}
}

func TestPolicyChecks(t *testing.T) {
	no := false
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{}, ""},
		{Policy{Lint: "none"}, ""},
		{Policy{Lint: "warning", Licenses: []string{"MIT"}}, "lint:warning license"},
		{Policy{Signature: &SignaturePolicy{Keys: []string{"a.pub"}}, Lint: "error", Permissions: PermissionPolicy{Subprocess: &no}}, "signature lint:error permissions"},
	} {
		if got := strings.Join(tc.p.Checks(), " "); got != tc.want {
			t.Errorf("Checks(%+v) = %q; want %q", tc.p, got, tc.want)
		}
	}
}
