package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/internal/command"
)

// SARIF 2.1.0, the subset GitHub code scanning reads:
// https://docs.github.com/en/code-security/code-scanning/integrating-with-code-scanning/sarif-support-for-code-scanning
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool       sarifTool     `json:"tool"`
	ColumnKind string        `json:"columnKind"`
	Results    []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name,omitempty"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifText         `json:"help"`
	DefaultConfiguration map[string]string `json:"defaultConfiguration"`
	Properties           map[string]any    `json:"properties"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Suppressions        []sarifSupp       `json:"suppressions,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifSupp struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification"`
}

// sarifLevel maps a severity to SARIF's level; security-severity (a CVSS
// score) is what GitHub shows as critical/high/medium/low.
func sarifLevel(s audit.Severity) (string, string) {
	switch s {
	case audit.Critical:
		return "error", "9.5"
	case audit.High:
		return "error", "8.0"
	case audit.Medium:
		return "warning", "5.5"
	}
	return "note", "3.0"
}

// writeSARIF writes one run with every rule and every finding. Paths are
// relative, with forward slashes, as the user named the skill (run it
// from the repository root for code scanning to place them).
func writeSARIF(w io.Writer, reps []*audit.Report) error {
	rules := audit.Rules()
	index := map[string]int{}
	drv := sarifDriver{Name: "skillpm audit", InformationURI: "https://github.com/skillpm/skillpm#audit", Version: audit.RulesVersion}
	for i, r := range rules {
		index[r.ID] = i
		level, score := sarifLevel(r.Severity)
		drv.Rules = append(drv.Rules, sarifRule{
			ID: r.ID, Name: pascal(r.ID),
			ShortDescription:     sarifText{r.Summary},
			FullDescription:      sarifText{r.Summary + ". Fix: " + r.Fix},
			Help:                 sarifText{"Fix: " + r.Fix},
			DefaultConfiguration: map[string]string{"level": level},
			Properties:           map[string]any{"security-severity": score, "tags": []string{"security"}, "precision": "high"},
		})
	}
	run := sarifRun{Tool: sarifTool{drv}, ColumnKind: "unicodeCodePoints", Results: []sarifResult{}}
	for _, rep := range reps {
		for _, f := range rep.Findings {
			level, _ := sarifLevel(f.Severity)
			uri := strings.TrimPrefix(rep.Source+"/"+f.File, "./")
			if f.File == "." {
				uri = strings.TrimPrefix(rep.Source, "./")
			}
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: uri}}}
			// A finding about a whole file points at its first line:
			// code scanning wants a region.
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: max(f.Line, 1), StartColumn: f.Column}
			msg := f.Message
			if f.Match != "" {
				msg += ": " + f.Match
			}
			// The fingerprint ignores the line, so moving a finding does
			// not make it new in code scanning.
			sum := sha256.Sum256([]byte(f.Rule + "\x00" + uri + "\x00" + f.Match))
			res := sarifResult{
				RuleID: f.Rule, RuleIndex: index[f.Rule], Level: level, Message: sarifText{msg},
				Locations:           []sarifLocation{loc},
				PartialFingerprints: map[string]string{"skillpmFinding/v1": hex.EncodeToString(sum[:16])},
			}
			if s := f.Suppressed; s != nil {
				kind := "inSource"
				if s.Kind != "inline" {
					kind = "external"
				}
				res.Suppressions = []sarifSupp{{Kind: kind, Justification: s.Reason}}
			}
			run.Results = append(run.Results, res)
		}
	}
	return command.WriteJSON(w, sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

// pascal turns a rule ID into the readable name SARIF wants beside it
// ("download-exec" -> "DownloadExec").
// A one-word ID gets no name: SARIF wants the two to differ.
func pascal(id string) string {
	if !strings.Contains(id, "-") {
		return ""
	}
	var sb strings.Builder
	for _, w := range strings.Split(id, "-") {
		if w != "" {
			sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return sb.String()
}
