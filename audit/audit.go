// Package audit scans the content of a skill folder statically, before
// anything in it runs: what SKILL.md and its references tell the agent to
// do (prompt injection, hidden text, host-command preprocessing), what its
// scripts do (download-and-execute, decoded payloads, credential reads,
// exfiltration, behaviour its declared permissions do not allow), and what
// it carries (committed secrets, executables without source, sizes hosts
// refuse).
//
// Rules are data (see Rules) plus small matchers: every rule has a stable
// ID, a severity, a one-line summary and a fix. Scan reads every file with
// bounds, finds keyword hits in one pass per file, and confirms each hit on
// its line with the rule's pattern. Findings can be suppressed with a
// reason, inline (a "skillpm-audit-ignore RULE reason" comment) or through
// an AllowList; suppressed findings stay in the report, marked.
package audit

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// RulesVersion names the rule set. It changes whenever a rule is added,
// removed or matches differently, so a recorded audit result (an
// attestation, a CI log) says which rules it ran.
const RulesVersion = "1.1.0"

// ErrFindings is wrapped by errors that refuse something because an audit
// found problems at or above a threshold.
var ErrFindings = errors.New("audit findings")

// Severity ranks a finding. The zero value, None, is below every finding.
type Severity int

// Severities, lowest first.
const (
	None Severity = iota
	Low
	Medium
	High
	Critical
)

var severityNames = [...]string{"none", "low", "medium", "high", "critical"}

// String returns the lower-case name: "critical", "high", "medium", "low"
// or "none".
func (s Severity) String() string {
	if s < None || s > Critical {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads a severity name; "none" is accepted (it matches no
// finding, so a threshold of None never fails).
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	return None, fmt.Errorf("unknown severity %q: want critical, high, medium, low or none", s)
}

// MarshalText writes the severity's name.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Finding is one rule that matched.
type Finding struct {
	// Rule is the stable rule ID (see Rules).
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	// File is the path inside the skill folder, with forward slashes.
	File string `json:"file"`
	// Line and Column are 1-based; Column counts Unicode code points.
	// Both are 0 when the finding concerns the whole file or skill.
	Line   int `json:"line,omitempty"`
	Column int `json:"column,omitempty"`
	// Match is the matched text, shortened to at most 80 characters, with
	// secrets masked and invisible characters spelled out (<U+202E>).
	Match string `json:"match,omitempty"`
	// Message is the rule's summary, with detail for this finding.
	Message string `json:"message"`
	// Suppressed says why the finding does not count, when it does not.
	Suppressed *Suppression `json:"suppressed,omitempty"`
}

// Location is "file:line:column", as far as it is known.
func (f Finding) Location() string {
	switch {
	case f.Line == 0:
		return f.File
	case f.Column == 0:
		return fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
}

// Suppression records why a finding was suppressed.
type Suppression struct {
	// Kind is "inline" (a skillpm-audit-ignore comment in the file) or
	// "allow-list" (an entry of the project's .skillpm-audit.yaml).
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
	// Source is where the suppression is written (file:line).
	Source string `json:"source,omitempty"`
}

// Report is the result of scanning one skill folder.
type Report struct {
	// Skill is the skill's name (frontmatter, else the folder's name).
	Skill string `json:"skill"`
	// Source names what was scanned as the user named it (a path, a
	// reference); Scan sets it to Dir and callers may replace it.
	Source string `json:"source"`
	// Dir is the folder that was scanned, as given to Scan.
	Dir          string `json:"-"`
	RulesVersion string `json:"rulesVersion"`
	// Files and Bytes count what was read.
	Files int   `json:"files"`
	Bytes int64 `json:"bytes"`
	// Findings are sorted by file, line, column and rule.
	Findings []Finding `json:"findings"`
}

// Worst is the highest severity of the unsuppressed findings, None when
// there are none.
func (r *Report) Worst() Severity {
	w := None
	for _, f := range r.Findings {
		if f.Suppressed == nil && f.Severity > w {
			w = f.Severity
		}
	}
	return w
}

// Count returns the number of unsuppressed findings of severity s.
func (r *Report) Count(s Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Suppressed == nil && f.Severity == s {
			n++
		}
	}
	return n
}

// Counts are the numbers of unsuppressed findings per severity, and of
// suppressed ones. It is what an attestation records next to RulesVersion.
type Counts struct {
	Critical   int `json:"critical"`
	High       int `json:"high"`
	Medium     int `json:"medium"`
	Low        int `json:"low"`
	Suppressed int `json:"suppressed"`
}

// Counts tallies the report's findings.
func (r *Report) Counts() Counts {
	var c Counts
	for _, f := range r.Findings {
		if f.Suppressed != nil {
			c.Suppressed++
			continue
		}
		switch f.Severity {
		case Critical:
			c.Critical++
		case High:
			c.High++
		case Medium:
			c.Medium++
		case Low:
			c.Low++
		}
	}
	return c
}

// Add sums two tallies.
func (c Counts) Add(o Counts) Counts {
	return Counts{c.Critical + o.Critical, c.High + o.High, c.Medium + o.Medium, c.Low + o.Low, c.Suppressed + o.Suppressed}
}

// AtLeast returns the unsuppressed findings of severity min or above.
func (r *Report) AtLeast(min Severity) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Suppressed == nil && f.Severity >= min && min > None {
			out = append(out, f)
		}
	}
	return out
}

// MarshalJSON adds the report's worst severity and counts.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	p := (*plain)(r)
	if p.Findings == nil {
		p.Findings = []Finding{}
	}
	return json.Marshal(struct {
		*plain
		Worst  Severity `json:"worst"`
		Counts Counts   `json:"counts"`
	}{p, r.Worst(), r.Counts()})
}
