package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/opencontainers/go-digest"
	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/skill"
)

type auditOptions struct {
	args      []string
	format    string
	failOn    audit.Severity
	allowList string
}

func auditCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "scan skills for prompt injection, risky scripts and secrets before they run",
		UsageText: `skillpm audit [options] [PATH|REF|project]...

PATH is a skill folder or a folder of skills (default: the current folder).
REF is a published skill (REPOSITORY[:TAG|@DIGEST|@RANGE]): it is pulled
into the cache and unpacked into a temporary folder, never installed.
"project" audits every skill of the project's skills.lock: the installed
folder when it matches the lock, else the locked digest from its registry
(write ./project for a folder of that name).

Findings have a rule ID, a severity (critical, high, medium, low), a
location and the matched text. The exit status is 13 when an unsuppressed
finding is at or above --fail-on (default high). Suppress a reviewed
finding inline with a comment "skillpm-audit-ignore RULE reason" (honoured
in local folders only) or in .skillpm-audit.yaml beside skills.yaml.

Examples:
  skillpm audit ./pdf-tools
  skillpm audit --format sarif .claude/skills > audit.sarif
  skillpm audit --plain-http 127.0.0.1:5000/skills/pdf:1.2.0
  skillpm audit --fail-on critical project
  skillpm audit --rules`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table, json or sarif (SARIF 2.1.0, for GitHub code scanning)"},
			&cli.StringFlag{Name: "fail-on", Value: "high", Usage: "exit 13 when an unsuppressed finding is at or above `SEVERITY` (critical, high, medium, low; none never fails)"},
			&cli.StringFlag{Name: "allow-list", Usage: "reviewed findings to suppress, from `FILE` (default: .skillpm-audit.yaml in the project)"},
			&cli.BoolFlag{Name: "rules", Usage: "list the audit rules and exit"},
		}, command.ProjectFlags()...),
		Action: func(c *cli.Context) error {
			if c.Bool("rules") {
				return printAuditRules(e)
			}
			sev, err := audit.ParseSeverity(c.String("fail-on"))
			if err != nil {
				return command.UsageErrorf(c, "--fail-on: %v", err)
			}
			opts := auditOptions{args: c.Args().Slice(), format: c.String("format"), failOn: sev, allowList: c.String("allow-list")}
			if e.JSON {
				opts.format = "json"
			}
			switch opts.format {
			case "table", "json", "sarif":
			default:
				return command.UsageErrorf(c, "--format %q: want table, json or sarif", opts.format)
			}
			if len(opts.args) == 0 {
				opts.args = []string{"."}
			}
			return runAudit(c, e, opts)
		},
	}
}

// auditTarget is one skill folder to scan and how to name it.
type auditTarget struct {
	source string // as the user named it: a path, a reference, name@version
	dir    string // the folder to scan
	name   string // skill name when known from outside (a registry)
	local  bool   // the user's own folder: inline suppressions count
}

func runAudit(c *cli.Context, e *command.Env, opts auditOptions) error {
	allow, err := loadAllowList(c, opts.allowList)
	if err != nil {
		return err
	}
	var targets []auditTarget
	for _, arg := range opts.args {
		t, err := auditTargets(c, e, arg)
		if err != nil {
			return err
		}
		targets = append(targets, t...)
	}
	// Skills are scanned in parallel; the reports keep the targets' order.
	reps := make([]*audit.Report, len(targets))
	g, gctx := errgroup.WithContext(c.Context)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, t := range targets {
		g.Go(func() error {
			rep, err := audit.Scan(gctx, t.dir, audit.Options{Name: t.name, Inline: t.local, AllowList: allow})
			if err != nil {
				return err
			}
			rep.Source = t.source
			reps[i] = rep
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	switch opts.format {
	case "json":
		err = printAuditJSON(e, reps, opts.failOn)
	case "sarif":
		err = writeSARIF(e.Stdout, reps)
	default:
		printAuditTable(e, reps)
	}
	if err != nil {
		return err
	}
	worst := audit.None
	for _, r := range reps {
		worst = max(worst, r.Worst())
	}
	if opts.failOn > audit.None && worst >= opts.failOn {
		return &command.SilentError{Code: command.ExitAudit}
	}
	return nil
}

// auditTargets turns one argument into the folders to scan: an existing
// path, the project's lock, or a published reference.
func auditTargets(c *cli.Context, e *command.Env, arg string) ([]auditTarget, error) {
	if arg == "project" {
		return projectTargets(c, e)
	}
	// An existing path, or one that can only be a path (./x, ../x, /x),
	// is a folder; a missing one is "not found" rather than a registry
	// lookup of a host called ".".
	_, statErr := os.Lstat(arg)
	if statErr == nil || strings.HasPrefix(arg, ".") || filepath.IsAbs(arg) || strings.HasPrefix(arg, "/") || strings.Contains(arg, `\`) {
		dirs, err := skill.Find(arg)
		if err != nil {
			return nil, err
		}
		var out []auditTarget
		for _, d := range dirs {
			out = append(out, auditTarget{source: filepath.ToSlash(d), dir: d, local: ownFolder(d)})
		}
		return out, nil
	}
	ref, err := registry.ParseReference(arg)
	if err != nil {
		// Neither a file nor a reference: say both.
		_, nf := skill.Find(arg)
		return nil, fmt.Errorf("%w (and not a reference: %v)", nf, err)
	}
	ro, err := command.ReadRegistryOptions(c)
	if err != nil {
		return nil, err
	}
	client, err := registryClient(e, ro)
	if err != nil {
		return nil, err
	}
	t, err := pullForAudit(c, e, client, ref, "")
	if err != nil {
		return nil, err
	}
	return []auditTarget{t}, nil
}

// ownFolder reports whether the skill folder dir is the user's own, whose
// inline suppressions count: not a skill that skillpm installed there
// (listed in the install record beside it), whose content came from a
// registry and could suppress its own findings. A record that cannot be
// read vouches for nothing.
func ownFolder(dir string) bool {
	rec, err := install.ReadRecord(filepath.Dir(filepath.Clean(dir)))
	if err != nil {
		return false
	}
	_, managed := rec.Skills[filepath.Base(filepath.Clean(dir))]
	return !managed
}

// pullForAudit unpacks a published skill into a temporary folder that is
// removed when the command ends. The content goes through the cache and
// is digest-checked as for pull; nothing is installed.
func pullForAudit(c *cli.Context, e *command.Env, client *registry.Client, ref registry.Reference, source string) (auditTarget, error) {
	res, err := client.Resolve(c.Context, ref)
	if err != nil {
		return auditTarget{}, err
	}
	tmp, err := os.MkdirTemp("", "skillpm-audit-")
	if err != nil {
		return auditTarget{}, err
	}
	e.AtExit(func() { os.RemoveAll(tmp) })
	dir := filepath.Join(tmp, "skill")
	if _, err := client.Extract(c.Context, res, dir, registry.PullOptions{}); err != nil {
		return auditTarget{}, err
	}
	if source == "" {
		source = res.Ref.String()
	}
	return auditTarget{source: source, dir: dir, name: res.Name()}, nil
}

// projectTargets lists every locked skill: its installed folder when that
// matches the lock, else the locked manifest pulled by digest.
func projectTargets(c *cli.Context, e *command.Env) ([]auditTarget, error) {
	po, err := command.ReadProjectOptions(c)
	if err != nil {
		return nil, err
	}
	m, err := openOffline(e, po)
	if err != nil {
		return nil, err
	}
	lock, err := m.ReadLock()
	if err != nil {
		return nil, err
	}
	if lock == nil {
		return nil, fmt.Errorf("%s: %w: no skills.lock; run 'skillpm install' first", m.Project.Dir(), manager.ErrNotInstalled)
	}
	installed := map[string]string{}
	if states, err := install.Status(m.TargetDirs(), lock, m.InstallOwner(), m.Bounds()); err == nil {
		for _, st := range states {
			if st.State == install.StateOK && installed[st.Name] == "" {
				installed[st.Name] = filepath.Join(st.Target, st.Name)
			}
		}
	}
	var client *registry.Client
	var out []auditTarget
	for _, s := range lock.Skills {
		source := s.Name + "@" + s.Version
		if dir := installed[s.Name]; dir != "" {
			out = append(out, auditTarget{source: source, dir: dir, name: s.Name})
			continue
		}
		ref, err := registry.ParseReference(m.Project.Abs(s.Repository))
		if err != nil {
			return nil, fmt.Errorf("skills.lock: %s: %w", s.Name, err)
		}
		d, err := digest.Parse(s.Manifest)
		if err != nil {
			return nil, fmt.Errorf("skills.lock: %s: manifest %q: %w", s.Name, s.Manifest, err)
		}
		if client == nil {
			ro, err := command.ReadRegistryOptions(c)
			if err != nil {
				return nil, err
			}
			if client, err = registryClient(e, ro); err != nil {
				return nil, err
			}
		}
		t, err := pullForAudit(c, e, client, ref.WithDigest(d), source)
		if err != nil {
			return nil, err
		}
		t.name = s.Name
		out = append(out, t)
	}
	return out, nil
}

func printAuditTable(e *command.Env, reps []*audit.Report) {
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	rows := 0
	used := map[string]bool{}
	var total audit.Counts
	for _, r := range reps {
		total = total.Add(r.Counts())
		for _, f := range r.Findings {
			if e.Quiet && (f.Suppressed != nil || f.Severity < audit.High) {
				continue
			}
			if rows == 0 {
				fmt.Fprintln(tw, "SEVERITY\tRULE\tLOCATION\tFINDING")
			}
			rows++
			sev, what := f.Severity.String(), f.Message
			if f.Match != "" {
				what = f.Match
			}
			if f.Suppressed != nil {
				sev = "(" + sev + ")"
				what = fmt.Sprintf("suppressed (%s, %s): %s", f.Suppressed.Kind, f.Suppressed.Source, f.Suppressed.Reason)
			} else {
				used[f.Rule] = true
				sev = e.Paint(severityColor(f.Severity), sev)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sev, f.Rule, location(r, f), what)
		}
	}
	tw.Flush()
	if e.Quiet {
		return
	}
	if len(used) > 0 {
		fmt.Fprintln(e.Stdout)
		for _, rule := range audit.Rules() {
			if used[rule.ID] {
				fmt.Fprintf(e.Stdout, "%s: %s\n    fix: %s\n", rule.ID, rule.Summary, rule.Fix)
			}
		}
		fmt.Fprintln(e.Stdout)
	}
	clean := 0
	for _, r := range reps {
		if r.Worst() == audit.None {
			clean++
		}
	}
	fmt.Fprintf(e.Stdout, "%d critical, %d high, %d medium, %d low (%d suppressed) in %s (%d clean); rules %s\n",
		total.Critical, total.High, total.Medium, total.Low, total.Suppressed, command.Plural(len(reps), "skill"), clean, audit.RulesVersion)
}

func severityColor(s audit.Severity) string {
	switch s {
	case audit.Critical, audit.High:
		return "31"
	case audit.Medium:
		return "33"
	}
	return "2"
}

func printAuditJSON(e *command.Env, reps []*audit.Report, failOn audit.Severity) error {
	var total audit.Counts
	worst := audit.None
	for _, r := range reps {
		total = total.Add(r.Counts())
		worst = max(worst, r.Worst())
	}
	return command.WriteJSON(e.Stdout, map[string]any{
		"rulesVersion": audit.RulesVersion, "failOn": failOn, "worst": worst, "counts": total,
		"skills": command.NonNil(reps),
	})
}

func printAuditRules(e *command.Env) error {
	rules := audit.Rules()
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"rulesVersion": audit.RulesVersion, "rules": rules})
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tSEVERITY\tSUMMARY")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.ID, r.Severity, r.Summary)
	}
	return tw.Flush()
}
