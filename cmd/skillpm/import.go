package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/importer"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
)

// Actions 'skillpm import' reports per skill.
const (
	importInstalled = "installed" // added to skills.yaml, locked and installed (matching folders adopted as they are)
	importWritten   = "written"   // written to skills.yaml; resolves once its source kind is supported
	importReported  = "reported"  // nothing written: see the notes
)

func importCommand(e *env) *cli.Command {
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
		Flags: append(projectFlags(),
			&cli.BoolFlag{Name: "dry-run", Usage: "report what would be written and installed, change nothing"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "import takes no arguments")
			}
			return runImport(c, e, c.Bool("dry-run"))
		},
	}
}

type importRow struct {
	*importer.Proposal
	Action string `json:"action"`
}

func runImport(c *cli.Context, e *env, dryRun bool) error {
	po, err := readProjectOptions(c)
	if err != nil {
		return err
	}
	root, dirs := po.dir, map[string]bool{}
	if po.global {
		if root, err = os.UserHomeDir(); err != nil {
			return err
		}
	}
	var dirList []string
	for _, p := range agent.Programs {
		ds := p.ProjectDirs
		if po.global {
			ds = p.UserDirs
		}
		for _, d := range ds {
			if !dirs[d] {
				dirs[d] = true
				dirList = append(dirList, d)
			}
		}
	}
	var existing []string
	if p, err := project.Load(po.dir); err == nil {
		existing = p.Names()
	} else if !errors.Is(err, project.ErrNotFound) {
		return err
	}
	res, err := importer.Scan(c.Context, importer.Options{Root: root, Global: po.global, StateHome: os.Getenv("XDG_STATE_HOME"), Dirs: dirList, Existing: existing})
	if err != nil {
		return err
	}
	ro, err := readRegistryOptions(c)
	if err != nil {
		return err
	}
	client, err := registryClient(e, ro)
	if err != nil {
		return err
	}
	if err := matchHandCopies(c, client, root, po.dir, res.Proposals); err != nil {
		return err
	}
	rows := make([]importRow, 0, len(res.Proposals))
	var wants []manager.Want
	var sources []*importer.Proposal
	for _, p := range res.Proposals {
		row := importRow{Proposal: p, Action: importReported}
		switch p.Kind {
		case importer.KindOCI:
			ok, err := checkImport(c, client, root, p)
			if err != nil {
				return err
			}
			if ok {
				row.Action = importInstalled
				wants = append(wants, manager.Want{Name: p.Name, Constraint: p.Entry.Version, Registry: p.Entry.Registry})
			}
		case importer.KindGit, importer.KindWellKnown, importer.KindLocal:
			row.Action = importWritten
			sources = append(sources, p)
			if p.Kind == importer.KindGit {
				p.Notes = append(p.Notes, "installs once skillpm's git source is available; until then 'skillpm install' cannot resolve it")
			}
			for _, f := range p.Folders {
				if f.Link != "" {
					p.Notes = append(p.Notes, fmt.Sprintf("%s is a symlink (to %s), which skillpm never replaces: remove it before installing", f.Path, f.Link))
				}
			}
		}
		rows = append(rows, row)
	}
	var lockWritten bool
	if !dryRun && len(wants) > 0 {
		oo, err := readOpenOptions(c)
		if err != nil {
			return err
		}
		oo.create, oo.trust = true, true
		m, err := openManager(e, oo)
		if err != nil {
			return err
		}
		for i := range wants {
			if r := wants[i].Registry; r == m.Project.Registry || r == m.Project.Abs(m.Project.Registry) {
				wants[i].Registry = ""
			}
		}
		if _, err := m.Add(c.Context, manager.AddOptions{Skills: wants}); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		lockWritten = true
	}
	if !dryRun && len(sources) > 0 {
		if err := writeSources(c, po.dir, sources); err != nil {
			return err
		}
	}
	return printImport(e, res, rows, dryRun, lockWritten)
}

// matchHandCopies looks for the folders no installer recorded in the
// project's registry (skills.yaml's, else SKILLPM_REGISTRY).
func matchHandCopies(c *cli.Context, client *registry.Client, root, dir string, ps []*importer.Proposal) error {
	prefix := envRegistry()
	if p, err := project.Load(dir); err == nil && p.Registry != "" {
		prefix = p.Abs(p.Registry)
	}
	if prefix == "" {
		return nil
	}
	for _, p := range ps {
		if _, err := importer.Match(c.Context, client, root, prefix, p); err != nil {
			return err
		}
	}
	return nil
}

// checkImport compares the installed folders of an OCI proposal with what
// its source serves.
func checkImport(c *cli.Context, client *registry.Client, root string, p *importer.Proposal) (bool, error) {
	ok, err := importer.Check(c.Context, client, root, "", p)
	if err != nil {
		return false, err
	}
	for _, f := range p.Folders {
		switch f.Status {
		case importer.StatusDiffers:
			p.Notes = append(p.Notes, fmt.Sprintf("%s differs from what %s/%s %s serves: left as it is and not added (move it away and import again to install the published one)", f.Path, p.Entry.Registry, p.Name, p.Entry.Version))
		case importer.StatusLink:
			p.Notes = append(p.Notes, fmt.Sprintf("%s is a symlink, which skillpm never replaces: not added (remove the link and import again)", f.Path))
		}
	}
	return ok, nil
}

// writeSources writes the git, well-known and local entries into
// skills.yaml, holding the project lock.
func writeSources(c *cli.Context, dir string, ps []*importer.Proposal) error {
	l, err := install.Acquire(c.Context, dir)
	if err != nil {
		return err
	}
	defer l.Unlock()
	m, err := project.Load(dir)
	if errors.Is(err, project.ErrNotFound) {
		m = project.New(dir, envRegistry())
	} else if err != nil {
		return err
	}
	for _, p := range ps {
		en := p.Entry
		w := project.Want{Git: en.Git, Path: en.Path, Ref: en.Ref, WellKnown: en.WellKnown, Local: en.Local}
		if err := project.CheckSource(p.Name, w); err != nil {
			return err
		}
		m.SetSource(p.Name, w)
	}
	data, err := m.Marshal()
	if err != nil {
		return err
	}
	if err := lockfile.WriteFileAtomic(m.Path(), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", m.Path(), err)
	}
	return nil
}

func printImport(e *env, res *importer.Result, rows []importRow, dryRun, lockWritten bool) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"files": res.Files, "skipped": res.Skipped, "skills": rows, "dryRun": dryRun, "lockWritten": lockWritten})
	}
	if e.quiet {
		return nil
	}
	if len(res.Files) > 0 {
		fmt.Fprintf(e.stdout, "read %s\n", strings.Join(res.Files, ", "))
	}
	t := newTable(e.stdout, 0, 4, 2)
	fmt.Fprintln(t, "NAME\tSOURCE\tACTION")
	counts := map[string]int{}
	for _, r := range rows {
		action := r.Action
		if dryRun && action != importReported {
			action = "would be " + action
		}
		counts[r.Action]++
		fmt.Fprintf(t, "%s\t%s\t%s\n", r.Name, termLine(describeEntry(r.Proposal)), action)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	for _, r := range rows {
		for _, n := range r.Notes {
			fmt.Fprintf(e.stdout, "  %s: %s\n", r.Name, termLine(n))
		}
	}
	if len(res.Skipped) > 0 {
		fmt.Fprintf(e.stdout, "skipped (already in skills.yaml or managed by skillpm): %s\n", strings.Join(res.Skipped, ", "))
	}
	verb := ""
	if dryRun {
		verb = "would be "
	}
	entries := "entries"
	if counts[importWritten] == 1 {
		entries = "entry"
	}
	fmt.Fprintf(e.stdout, "%s %sinstalled, %d %s %swritten, %s reported\n", plural(counts[importInstalled], "skill"), verb, counts[importWritten], entries, verb, plural(counts[importReported], "skill"))
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
