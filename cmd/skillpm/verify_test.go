package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportVerifyExitCode checks that any failed row makes verify exit
// non-zero with the most severe row's code, whatever the output format.
func TestReportVerifyExitCode(t *testing.T) {
	tests := []struct {
		name  string
		codes []int // one row per code; 0 is a row that passed
		want  int
	}{
		{"all ok", []int{0, 0}, exitOK},
		{"one error", []int{exitError}, exitError},
		{"error after ok", []int{0, exitError}, exitError},
		{"network over error", []int{exitError, exitNetwork}, exitNetwork},
		{"policy over network", []int{exitNetwork, exitPolicy, exitError}, exitPolicy},
		{"integrity over policy", []int{exitPolicy, exitIntegrity}, exitIntegrity},
	}
	for _, tc := range tests {
		for _, asJSON := range []bool{false, true} {
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, json: asJSON}
			var rows []*verifyRow
			for _, c := range tc.codes {
				r := &verifyRow{Repository: "r.example/skills/x", Manifest: "x:1.0.0"}
				if c != 0 {
					r.fail(c, "failed", "it failed")
				}
				rows = append(rows, r)
			}
			got := exitCode(reportVerify(e, rows))
			if got != tc.want {
				t.Errorf("%s (json %v): exit %d; want %d\nstdout: %s\nstderr: %s", tc.name, asJSON, got, tc.want, stdout.String(), stderr.String())
			}
			if asJSON {
				var out struct{ OK bool }
				if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
					t.Fatalf("%s: --json output %q: %v", tc.name, stdout.String(), err)
				}
				if out.OK != (tc.want == exitOK) {
					t.Errorf("%s: \"ok\" = %v with exit %d", tc.name, out.OK, got)
				}
			} else if tc.want != exitOK && !strings.Contains(stderr.String(), "failed verification") {
				t.Errorf("%s: stderr = %q; want the failure count", tc.name, stderr.String())
			}
		}
	}
}

// TestUserPolicy checks that only a missing user config means "no
// policy": one that cannot be read or decoded is a usage error naming
// the file, never a silent absence of signature checks.
func TestUserPolicy(t *testing.T) {
	tests := []struct {
		name    string
		config  string // "" writes no config.yaml; "<dir>" makes it a folder
		want    string // relative to SKILLPM_HOME
		wantErr string
	}{
		{"no config", "", "", ""},
		{"no policy", "plain_http: [localhost:5000]\n", "", ""},
		{"relative", "policy: trust/policy.yaml\n", "trust/policy.yaml", ""},
		{"type mismatch", "policy: [a.yaml, b.yaml]\n", "", "config.yaml: yaml: unmarshal errors"},
		{"syntax", "policy: {\n", "", "config.yaml: yaml:"},
		{"unreadable", "<dir>", "", "config.yaml: is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			t.Setenv("SKILLPM_HOME", home)
			cfg := filepath.Join(home, "config.yaml")
			switch tc.config {
			case "":
			case "<dir>":
				if err := os.Mkdir(cfg, 0o755); err != nil {
					t.Fatal(err)
				}
			default:
				if err := os.WriteFile(cfg, []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := userPolicy()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || exitCode(err) != exitUsage {
					t.Fatalf("userPolicy() = %q, %v (exit %d); want a usage error containing %q", got, err, exitCode(err), tc.wantErr)
				}
				return
			}
			want := ""
			if tc.want != "" {
				want = filepath.Join(home, tc.want)
			}
			if err != nil || got != want {
				t.Errorf("userPolicy() = %q, %v; want %q, nil", got, err, want)
			}
		})
	}
}
