package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/verify"
)

// TestReportVerifyExitCode checks that any failed row makes verify exit
// non-zero with the most severe row's code, whatever the output format.
func TestReportVerifyExitCode(t *testing.T) {
	tests := []struct {
		name  string
		codes []verify.Status // one row per status; "" is a row that passed
		want  int
	}{
		{"all ok", []verify.Status{"", ""}, exitOK},
		{"one error", []verify.Status{verify.StatusError}, exitError},
		{"error after ok", []verify.Status{"", verify.StatusError}, exitError},
		{"not installed over error", []verify.Status{verify.StatusError, verify.StatusNotInstalled}, exitUninstalled},
		{"network over not installed", []verify.Status{verify.StatusNotInstalled, verify.StatusNetwork}, exitNetwork},
		{"network over error", []verify.Status{verify.StatusError, verify.StatusNetwork}, exitNetwork},
		{"policy over network", []verify.Status{verify.StatusNetwork, verify.StatusPolicy, verify.StatusError}, exitPolicy},
		{"integrity over policy", []verify.Status{verify.StatusPolicy, verify.StatusTampered}, exitIntegrity},
	}
	for _, tc := range tests {
		for _, asJSON := range []bool{false, true} {
			var stdout, stderr bytes.Buffer
			e := &env{stdout: &stdout, stderr: &stderr, json: asJSON}
			var rows []*verify.Report
			for _, c := range tc.codes {
				r := &verify.Report{Repository: "r.example/skills/x", Manifest: "x:1.0.0"}
				if c != "" {
					r.Fail(c, "it failed")
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
