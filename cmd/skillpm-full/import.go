package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/importer"
)

func importCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "import",
		Usage: "take skills other installers put here under management (skills CLI, ToolHive, hand-copied folders)",
		UsageText: `skillpm import [options]

Reads the skills CLI's skills-lock.json and ToolHive's toolhive.lock.yaml
at the project's root (with -g: the skills CLI's ~/.agents/.skill-lock.json)
and the skill folders in every agent's discovery folders, and writes the
equivalent skills.yaml entries, pinned to what was installed where the
installer recorded it (an OCI version, a git commit).

OCI entries are resolved, locked and installed at once: a folder that holds
exactly what the source serves is adopted without changing a byte; one that
differs (edited, another version, a symlink) is reported and left alone,
and its entry is not written. Git, well-known and local entries are written
in the shared sources shape and resolve when skillpm installs from those
sources. A folder no installer recorded is matched, by its packed content,
against the versions in the project's registry; unmatched ones are reported.

Examples:
  skillpm import --dry-run        # what would be written, and why
  skillpm import
  skillpm import -g --json        # the user scope, as JSON`,
		Flags: append(command.ProjectFlags(),
			&cli.BoolFlag{Name: "dry-run", Usage: "report what would be written and installed, change nothing"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return command.UsageErrorf(c, "import takes no arguments")
			}
			o, err := readImportOptions(c)
			if err != nil {
				return err
			}
			return runImport(c, e, o)
		},
	}
}

// importOptions are import's flags, and what the scan reads.
type importOptions struct {
	plan     importer.PlanOptions
	dryRun   bool // --dry-run
	open     openOptions
	registry string // SKILLPM_REGISTRY, for a new skills.yaml
}

// readImportOptions reads import's flags: the scan's root (the home
// folder with -g) and every agent's discovery folders.
func readImportOptions(c *cli.Context) (importOptions, error) {
	oo, err := readOpenOptions(c)
	if err != nil {
		return importOptions{}, err
	}
	oo.create, oo.trust = true, true
	po := oo.project
	root, dirs := po.Dir, map[string]bool{}
	if po.Global {
		if root, err = os.UserHomeDir(); err != nil {
			return importOptions{}, err
		}
	}
	var dirList []string
	for _, p := range agent.Programs {
		ds := p.ProjectDirs
		if po.Global {
			ds = p.UserDirs
		}
		for _, d := range ds {
			if !dirs[d] {
				dirs[d] = true
				dirList = append(dirList, d)
			}
		}
	}
	return importOptions{
		plan: importer.PlanOptions{
			Scan:     importer.Options{Root: root, Global: po.Global, StateHome: os.Getenv("XDG_STATE_HOME"), Dirs: dirList},
			Project:  po.Dir,
			Registry: command.EnvRegistry(),
		},
		dryRun:   c.Bool("dry-run"),
		open:     oo,
		registry: command.EnvRegistry(),
	}, nil
}

func runImport(c *cli.Context, e *command.Env, o importOptions) error {
	client, err := registryClient(e, o.open.registry)
	if err != nil {
		return err
	}
	plan, err := importer.MakePlan(c.Context, client, o.plan)
	if err != nil {
		return err
	}
	var lockWritten bool
	if !o.dryRun {
		ao := importer.ApplyOptions{Project: o.plan.Project, Registry: o.registry}
		if plan.Adds() {
			if ao.Manager, err = openManager(e, o.open); err != nil {
				return err
			}
		}
		if lockWritten, err = plan.Apply(c.Context, ao); err != nil {
			return err
		}
	}
	return printImport(e, plan, o.dryRun, lockWritten)
}

// printImport prints what the import did (or would do, with dryRun).
func printImport(e *command.Env, plan *importer.Plan, dryRun, lockWritten bool) error {
	res, rows := plan.Result, plan.Rows
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"files": res.Files, "skipped": res.Skipped, "skills": rows, "dryRun": dryRun, "lockWritten": lockWritten})
	}
	if e.Quiet {
		return nil
	}
	if len(res.Files) > 0 {
		fmt.Fprintf(e.Stdout, "read %s\n", strings.Join(res.Files, ", "))
	}
	t := command.NewTable(e.Stdout, 0, 4, 2)
	fmt.Fprintln(t, "NAME\tSOURCE\tACTION")
	counts := map[importer.Action]int{}
	for _, r := range rows {
		action := r.Action
		if dryRun && action != importer.ActionReported {
			action = "would be " + action
		}
		counts[r.Action]++
		fmt.Fprintf(t, "%s\t%s\t%s\n", r.Name, command.TermLine(describeEntry(r.Proposal)), action)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		for _, n := range r.Notes {
			fmt.Fprintf(e.Stdout, "  %s: %s\n", r.Name, command.TermLine(n))
		}
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(e.Stdout, "skipped (already in skills.yaml or managed by skillpm): %s\n", strings.Join(res.Skipped, ", "))
	}
	verb := ""
	if dryRun {
		verb = "would be "
	}
	entries := "entries"
	if counts[importer.ActionWritten] == 1 {
		entries = "entry"
	}
	fmt.Fprintf(e.Stdout, "%s %sinstalled, %d %s %swritten, %s reported\n", command.Plural(counts[importer.ActionInstalled], "skill"), verb, counts[importer.ActionWritten], entries, verb, command.Plural(counts[importer.ActionReported], "skill"))
	return nil
}

func describeEntry(p *importer.Proposal) string {
	en := p.Entry
	switch p.Kind {
	case importer.KindOCI:
		return "oci " + en.Registry + "/" + p.Name + " " + en.Version
	case importer.KindGit:
		s := "git " + en.Git
		if en.Path != "" {
			s += " " + en.Path
		}
		if en.Ref != "" {
			s += " @" + en.Ref
		}
		return s
	case importer.KindWellKnown:
		return "wellknown " + en.WellKnown
	case importer.KindLocal:
		return "local " + en.Local
	}
	return "(none) " + p.From
}
