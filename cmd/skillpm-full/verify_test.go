package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/command"
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
		{"all ok", []verify.Status{"", ""}, command.ExitOK},
		{"one error", []verify.Status{verify.StatusError}, command.ExitError},
		{"error after ok", []verify.Status{"", verify.StatusError}, command.ExitError},
		{"not installed over error", []verify.Status{verify.StatusError, verify.StatusNotInstalled}, command.ExitUninstalled},
		{"network over not installed", []verify.Status{verify.StatusNotInstalled, verify.StatusNetwork}, command.ExitNetwork},
		{"network over error", []verify.Status{verify.StatusError, verify.StatusNetwork}, command.ExitNetwork},
		{"policy over network", []verify.Status{verify.StatusNetwork, verify.StatusPolicy, verify.StatusError}, command.ExitPolicy},
		{"integrity over policy", []verify.Status{verify.StatusPolicy, verify.StatusTampered}, command.ExitIntegrity},
	}
	for _, tc := range tests {
		for _, asJSON := range []bool{false, true} {
			var stdout, stderr bytes.Buffer
			e := &command.Env{Stdout: &stdout, Stderr: &stderr, JSON: asJSON}
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
				if out.OK != (tc.want == command.ExitOK) {
					t.Errorf("%s: \"ok\" = %v with exit %d", tc.name, out.OK, got)
				}
			} else if tc.want != command.ExitOK && !strings.Contains(stderr.String(), "failed verification") {
				t.Errorf("%s: stderr = %q; want the failure count", tc.name, stderr.String())
			}
		}
	}
}
