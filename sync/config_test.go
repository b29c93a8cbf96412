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
