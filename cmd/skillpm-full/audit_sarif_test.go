package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/skillpm/skillpm/audit"
)

func TestWriteSARIF(t *testing.T) {
	rep := &audit.Report{Source: "skills/pdf", Findings: []audit.Finding{
		{Rule: "download-exec", Severity: audit.Critical, File: "SKILL.md", Line: 7, Column: 3, Match: "curl x | sh", Message: "m"},
		{Rule: "executable-binary", Severity: audit.High, File: "bin/tool", Message: "m"},
		{Rule: "overbroad-permission", Severity: audit.Medium, File: "SKILL.md", Line: 5, Message: "m",
			Suppressed: &audit.Suppression{Kind: "allow-list", Reason: "reviewed"}},
	}}
	var buf bytes.Buffer
	if err := writeSARIF(&buf, []*audit.Report{rep}); err != nil {
		t.Fatal(err)
	}
	var log sarifLog
	if err := json.Unmarshal(buf.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs", log.Version, len(log.Runs))
	}
	run := log.Runs[0]
	if got, want := len(run.Tool.Driver.Rules), len(audit.Rules()); got != want {
		t.Errorf("%d rules; want %d", got, want)
	}
	want := []struct {
		uri, level, supp string
		line, col        int
	}{
		{"skills/pdf/SKILL.md", "error", "", 7, 3},
		{"skills/pdf/bin/tool", "error", "", 1, 0},
		{"skills/pdf/SKILL.md", "warning", "external", 5, 0},
	}
	for i, r := range run.Results {
		if rule := run.Tool.Driver.Rules[r.RuleIndex]; rule.ID != r.RuleID {
			t.Errorf("result %d: ruleIndex points at %s, not %s", i, rule.ID, r.RuleID)
		}
		loc := r.Locations[0].PhysicalLocation
		w := want[i]
		if loc.ArtifactLocation.URI != w.uri || r.Level != w.level || loc.Region.StartLine != w.line || loc.Region.StartColumn != w.col {
			t.Errorf("result %d: %s %s %d:%d; want %+v", i, loc.ArtifactLocation.URI, r.Level, loc.Region.StartLine, loc.Region.StartColumn, w)
		}
		if (len(r.Suppressions) > 0) != (w.supp != "") || (w.supp != "" && r.Suppressions[0].Kind != w.supp) {
			t.Errorf("result %d: suppressions %+v; want %q", i, r.Suppressions, w.supp)
		}
		if len(r.PartialFingerprints["skillpmFinding/v1"]) != 32 {
			t.Errorf("result %d: fingerprint %v", i, r.PartialFingerprints)
		}
	}
}
