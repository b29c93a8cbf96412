package main

import (
	"strings"
	"testing"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/internal/command"
)

// publish's audit lines quote a skill's file names and matched text: a
// name cannot drive the terminal, start a line, or give a CI runner a
// command.
func TestPrintAuditFindingsEscapes(t *testing.T) {
	rep := &audit.Report{Source: "./skill", Findings: []audit.Finding{{
		Rule: "secret", Severity: audit.High, File: "x\x1b[2J\n::add-mask::y", Line: 1,
		Match: "k ##[stop-commands]t", Message: "a secret",
	}}}
	var errb strings.Builder
	printAuditFindings(&command.Env{Stderr: &errb}, rep, audit.High)
	out := errb.String()
	if strings.Count(out, "\n") != 1 || strings.ContainsAny(out, "\x1b") || strings.Contains(out, "##[") || strings.Contains(out, "\n::") {
		t.Errorf("audit line %q is not escaped", out)
	}
}
