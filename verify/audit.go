package verify

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/audit"
)

// AuditRule is a rule's audit: block: skills under the rule's prefix are
// refused when a content audit (package audit) finds an unsuppressed
// problem at or above FailOn.
type AuditRule struct {
	// FailOn is the lowest severity that refuses a skill: "critical",
	// "high", "medium" or "low"; "none" refuses nothing (a longer prefix
	// can exempt repositories from its layer's broader rule with it).
	FailOn string `yaml:"fail_on" json:"fail_on"`

	failOn audit.Severity
}

// compile checks FailOn; a nil rule is valid.
func (a *AuditRule) compile() error {
	if a == nil {
		return nil
	}
	if a.FailOn == "" {
		return fmt.Errorf("audit needs fail_on: critical, high, medium or low")
	}
	s, err := audit.ParseSeverity(a.FailOn)
	if err != nil {
		return fmt.Errorf("audit.fail_on: %v", err)
	}
	a.failOn = s
	return nil
}

// Severity is the compiled FailOn.
func (a *AuditRule) Severity() audit.Severity {
	if a == nil {
		return audit.None
	}
	return a.failOn
}

// AuditThreshold is what a layered policy demands of a repository's
// content: the strictest fail_on among the layers' rules for it.
type AuditThreshold struct {
	// FailOn is the lowest severity that refuses a skill; None when no
	// layer audits the repository.
	FailOn audit.Severity
	// Policy names the layer and rule that set FailOn: `project policy
	// /p/trust.yaml, prefix "*"`.
	Policy string
}

// AuditThreshold returns the audit threshold of repo (a repository as
// skills.lock writes it). Layers are floors here too: every layer's rule
// must be satisfied, so the strictest fail_on applies and a later layer
// (the project's) can lower the threshold but never raise a floor's.
// Within one layer the longest prefix chooses the rule, as for
// signatures. Ties name the lowest layer.
func (v *Verifier) AuditThreshold(repo string) AuditThreshold {
	var t AuditThreshold
	for _, l := range v.layers {
		if l.Policy == nil {
			continue
		}
		r := l.Policy.Rule(repo)
		if r == nil {
			continue
		}
		s := r.Audit.Severity()
		if s == audit.None || (t.FailOn != audit.None && s >= t.FailOn) {
			continue
		}
		t.FailOn = s
		t.Policy = fmt.Sprintf("prefix %q", r.Prefix)
		if lbl := l.label(); lbl != "" {
			t.Policy = lbl + ", " + t.Policy
		}
	}
	return t
}

// AuditError is a skill whose content audit found problems its trust
// policy refuses. It matches ErrPolicy.
type AuditError struct {
	// Skill names the skill (its folder's name).
	Skill string
	// Threshold is the policy's demand.
	Threshold AuditThreshold
	// Findings are the unsuppressed findings at or above the threshold,
	// worst first.
	Findings []audit.Finding
}

func (e *AuditError) Error() string {
	return fmt.Sprintf("%s; the trust policy refuses findings at or above %s (%s)", e.Summary(), e.Threshold.FailOn, e.Threshold.Policy)
}

// Summary names the worst finding, its rule and file, and how many more
// reached the threshold.
func (e *AuditError) Summary() string {
	f := e.Findings[0]
	var b strings.Builder
	fmt.Fprintf(&b, "audit rule %s (%s) at %s: %s", f.Rule, f.Severity, f.Location(), f.Message)
	if n := len(e.Findings) - 1; n > 0 {
		fmt.Fprintf(&b, " (and %d more at or above %s)", n, e.Threshold.FailOn)
	}
	return b.String()
}

// Is makes errors.Is(err, ErrPolicy) true: the trust policy refused the
// skill.
func (e *AuditError) Is(target error) bool { return target == ErrPolicy }

// Audit scans the skill folder dir, from repo (as skills.lock writes
// it), when the policy audits repo, and returns an *AuditError when
// findings reach the threshold. The content is not the user's: inline
// suppressions in it are ignored. It returns a nil report when the
// policy does not audit repo.
func (v *Verifier) Audit(ctx context.Context, repo, name, dir string) (*audit.Report, error) {
	t := v.AuditThreshold(repo)
	if t.FailOn == audit.None {
		return nil, nil
	}
	rep, err := audit.Scan(ctx, dir, audit.Options{Name: name})
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", name, err)
	}
	if err := CheckAudit(rep, t); err != nil {
		return rep, err
	}
	return rep, nil
}

// ruleScanLimit is the audit rule (README.md, "Audit") of content the
// scan did not read: past a file's or the skill's limit.
const ruleScanLimit = "scan-limit"

// CheckAudit returns an *AuditError when rep has unsuppressed findings at
// or above t.FailOn, or content the scan did not read (rule scan-limit,
// whatever its severity and t.FailOn: what was not read could hold a
// finding at any severity), else nil.
func CheckAudit(rep *audit.Report, t AuditThreshold) error {
	if t.FailOn == audit.None {
		return nil
	}
	var bad []audit.Finding
	for _, f := range rep.Findings {
		if f.Suppressed == nil && (f.Severity >= t.FailOn || f.Rule == ruleScanLimit) {
			bad = append(bad, f)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	// Worst first; the report's order (by file and line) breaks ties.
	sorted := make([]audit.Finding, 0, len(bad))
	for s := audit.Critical; s > audit.None; s-- {
		for _, f := range bad {
			if f.Severity == s {
				sorted = append(sorted, f)
			}
		}
	}
	return &AuditError{Skill: rep.Skill, Threshold: t, Findings: sorted}
}

// AuditSummary is the audit result a vetted attestation records: which
// rules ran, the threshold applied, and what they found.
type AuditSummary struct {
	// RulesVersion is audit.RulesVersion of the scanner that ran.
	RulesVersion string `json:"rulesVersion"`
	// FailOn is the threshold the version was held to.
	FailOn audit.Severity `json:"failOn"`
	// Worst is the highest severity of the unsuppressed findings.
	Worst audit.Severity `json:"worst"`
	// Counts are the findings per severity.
	Counts audit.Counts `json:"counts"`
}

// SummarizeAudit is what an attestation records of rep, held to failOn.
func SummarizeAudit(rep *audit.Report, failOn audit.Severity) *AuditSummary {
	return &AuditSummary{RulesVersion: rep.RulesVersion, FailOn: failOn, Worst: rep.Worst(), Counts: rep.Counts()}
}

// vettedBy checks that a vetted attestation records an audit that held
// the version to a's fail_on or stricter, and that it passed. A nil rule
// demands nothing.
func (a *AuditRule) vettedBy(vt *Vetting) error {
	want := a.Severity()
	switch {
	case want == audit.None:
		return nil
	case vt.Audit == nil:
		return fmt.Errorf("the vetted attestation records no audit; the policy demands one at fail_on %s", want)
	case vt.Audit.FailOn == audit.None || vt.Audit.FailOn > want:
		return fmt.Errorf("the vetted attestation records an audit at fail_on %s; the policy demands %s or stricter", vt.Audit.FailOn, want)
	case vt.Audit.Worst >= want:
		return fmt.Errorf("the vetted attestation records a %s audit finding; the policy refuses %s and above", vt.Audit.Worst, want)
	}
	return nil
}
