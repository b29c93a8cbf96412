package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

// loadAllowList reads --allow-list, else the project's .skillpm-audit.yaml
// when there is one.
func loadAllowList(c *cli.Context, name string) (*audit.AllowList, error) {
	if name == "" {
		dir, err := command.ProjectDir(c)
		if err != nil {
			return nil, err
		}
		name = filepath.Join(dir, audit.AllowFileName)
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	return audit.LoadAllowList(name)
}

// printAuditFindings prints the findings at or above min on stderr, for
// commands that audit on the way (publish).
func printAuditFindings(e *command.Env, rep *audit.Report, min audit.Severity) {
	for _, f := range rep.AtLeast(min) {
		msg := f.Message
		if f.Match != "" {
			msg += ": " + f.Match
		}
		// The file names and the matched text are the skill's.
		fmt.Fprintf(e.Stderr, "%s %s [%s] %s\n", e.PaintErr("audit:"), f.Severity, f.Rule, command.TermLine(strings.TrimSpace(location(rep, f)+": "+msg)))
	}
}

func printLint(e *command.Env, results []*skill.Result, errs, warns int) {
	clean := 0
	for _, r := range results {
		if len(r.Diagnostics) == 0 {
			clean++
			continue
		}
		for _, d := range r.Diagnostics {
			if e.Quiet && d.Severity != skill.SeverityError {
				continue
			}
			loc := d.File
			if d.Line > 0 {
				loc = fmt.Sprintf("%s:%d", d.File, d.Line)
			}
			sev := string(d.Severity)
			if d.Severity == skill.SeverityError {
				sev = e.Paint("31", sev)
			} else {
				sev = e.Paint("33", sev)
			}
			fmt.Fprintf(e.Stdout, "%s: %s %s %s\n", command.TermLine(loc), sev, e.Paint("2", "["+d.Rule+"]"), command.TermText(d.Message))
			if d.Fix != "" {
				fmt.Fprintf(e.Stdout, "    fix: %s\n", command.TermText(d.Fix))
			}
		}
	}
	if e.Quiet {
		return
	}
	fmt.Fprintf(e.Stdout, "%s, %s in %s (%d clean)\n",
		command.Plural(errs, "error"), command.Plural(warns, "warning"), command.Plural(len(results), "skill"), clean)
}

// location names a finding's file as the user can find it: under the
// path they gave, or under the skill's reference.
func location(r *audit.Report, f audit.Finding) string {
	if f.File == "." {
		return r.Source
	}
	l := f
	l.File = r.Source + "/" + f.File
	return l.Location()
}
