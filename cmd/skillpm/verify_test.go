package main

import (
	"bytes"
	"encoding/json"
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
