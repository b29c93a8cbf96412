package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

// filterFlags choose which installed skills a command serves.
func filterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "include", Usage: "serve only skills whose name matches `NAME_OR_GLOB` (repeatable)"},
		&cli.StringSliceFlag{Name: "exclude", Usage: "leave out skills whose name matches `NAME_OR_GLOB` (repeatable)"},
	}
}

// hostFlag applies the skills' host_overrides for one host.
func hostFlag() cli.Flag {
	return &cli.StringFlag{Name: "host", Usage: "apply the skills' host_overrides for `HOST`: " + strings.Join(skill.ReservedHosts, ", ")}
}

// maxOutputFlag caps a run's stdout and stderr.
func maxOutputFlag() cli.Flag {
	return &cli.IntFlag{Name: "max-output", Usage: "cap a run's stdout and stderr at `BYTES` each (0: 20480), marked [output truncated]"}
}

// selectionFlags are the inputs of §10 selection besides the text.
func selectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "file", Usage: "a `PATH` the request concerns, matched against when_to_use.file_types (repeatable)"},
		&cli.StringSliceFlag{Name: "intent", Usage: "an `INTENT` label, matched against when_to_use.intents (repeatable)"},
		&cli.IntFlag{Name: "threshold", Value: skill.DefaultThreshold, Usage: "select skills scoring at least `N`"},
	}
}

// prepareCatalog loads the catalog (loadCatalog), reports every skill it
// skips or serves despite lint errors, and applies --include/--exclude and
// --host when the command has them.
func prepareCatalog(ctx context.Context, e *env, c *cli.Context) (*agent.Catalog, error) {
	host := c.String("host")
	if host != "" && !skill.KnownHost(host) {
		return nil, usageErrorf(c, "unknown host %q; want one of %s", host, strings.Join(skill.ReservedHosts, ", "))
	}
	cat, err := loadCatalog(ctx, e, c)
	if err != nil {
		return nil, err
	}
	reportHealth(e, cat)
	cat, err = cat.Filter(c.StringSlice("include"), c.StringSlice("exclude"))
	if err != nil {
		return nil, usageErrorf(c, "%v", err)
	}
	cat, errs := cat.ForHost(host)
	for _, err := range errs {
		e.logf("warning: %v", err)
	}
	return cat, nil
}

// reportListHealth is reportHealth for 'skillpm list', which lists every
// folder but must still say which ones agents are not served, or are served
// despite lint errors. It reads metadata through the index.
//
// discovered, when non-nil, is what install.Discover returned for
// agent.Dirs(project, home), so that the folders are not read twice.
func reportListHealth(ctx context.Context, e *env, project, home string, discovered []install.Entry) {
	opts := agent.Options{Project: project, Home: home, Discovered: discovered}
	opts.IndexPath, _ = indexPath()
	cat, err := agent.Build(ctx, opts)
	if err != nil {
		return // interrupted: the listing itself is what was asked for
	}
	for _, p := range cat.Problems {
		e.logf("warning: skill %s cannot be read and is not served to agents: %v", filepath.Base(p.Dir), p.Err)
	}
	reportHealth(e, cat)
}

// reportHealth says on stderr which skills are skipped and which are
// served despite lint errors, with the rule and the fix.
func reportHealth(e *env, cat *agent.Catalog) {
	for _, s := range cat.Skipped {
		for _, is := range s.Issues {
			e.logf("warning: skipping skill %s (%s): %s; fix: %s", s.Name, s.Dir, is, is.Fix)
		}
	}
	for _, s := range cat.Skills {
		for _, is := range s.Issues {
			e.logf("warning: serving skill %s despite a lint error: %s; fix: %s", s.Name, is, is.Fix)
		}
	}
}

// selectQuery builds the selection query of the selection flags.
func selectQuery(c *cli.Context, text string) skill.Query {
	th := c.Int("threshold")
	if th == 0 {
		th = -1 // --threshold 0 selects every skill, as written
	}
	return skill.Query{Text: text, Files: c.StringSlice("file"), Intents: c.StringSlice("intent"), Threshold: th}
}

func selectCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "select",
		Usage: "select the installed skills relevant to a request (Universal spec §10)",
		UsageText: `skillpm select [options] TEXT...

Scores every effective installed skill against TEXT with the Universal spec's
deterministic selection (§10) and prints the selected ones, best first:

  - naming a skill or one of its tools in TEXT selects it (manual override);
  - +3 per when_to_use.file_types entry that ends a --file PATH or a word of TEXT,
    +2 per when_to_use.mentions entry found in TEXT as a whole word or phrase
    (a plural in "s" counts), +1 per when_to_use.intents entry given as --intent;
    case-insensitive, each entry counted once;
  - skills scoring at least --threshold (default 3) are selected;
  - order: named skills, then higher score, higher when_to_use.priority, name.

Prints nothing (and exits 0) when no skill is selected. --json prints every
skill with its score, what matched and whether it is selected.

Examples:
  skillpm select "extract the text of this scan" --file report.pdf
  skillpm select "summarise q3.xlsx" --intent summarise --threshold 2
  skillpm select --json "use pdf-processing"`,
		Flags: append(append(selectionFlags(), filterFlags()...), catalogFlags()...),
		Action: func(c *cli.Context) error {
			text := strings.Join(c.Args().Slice(), " ")
			if strings.TrimSpace(text) == "" && len(c.StringSlice("file")) == 0 && len(c.StringSlice("intent")) == 0 {
				return usageErrorf(c, "missing TEXT: skillpm select TEXT [--file PATH] [--intent NAME]")
			}
			cat, err := prepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			ranked := cat.Rank(selectQuery(c, text))
			if e.json {
				return writeJSON(e.stdout, map[string]any{"threshold": c.Int("threshold"), "skills": ranked})
			}
			tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
			n := 0
			for _, s := range ranked {
				if !s.Selected {
					continue
				}
				if n == 0 {
					fmt.Fprintln(tw, "SKILL\tSCORE\tPRIORITY\tMATCHED")
				}
				n++
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", s.Name, s.Score, s.Priority, strings.Join(s.Matches, ", "))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if n == 0 {
				e.logf("no skill scores %d or more (of %d installed)", c.Int("threshold"), len(cat.Skills))
			}
			return nil
		},
	}
}
