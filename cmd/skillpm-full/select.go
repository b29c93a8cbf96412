package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"
)

func selectCommand(e *command.Env) *cli.Command {
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
		Flags: append(append(command.SelectionFlags(), command.FilterFlags()...), command.CatalogFlags()...),
		Action: func(c *cli.Context) error {
			text := strings.Join(c.Args().Slice(), " ")
			if strings.TrimSpace(text) == "" && len(c.StringSlice("file")) == 0 && len(c.StringSlice("intent")) == 0 {
				return command.UsageErrorf(c, "missing TEXT: skillpm select TEXT [--file PATH] [--intent NAME]")
			}
			cat, err := command.PrepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			ranked := cat.Rank(command.SelectQuery(c, text))
			if e.JSON {
				return command.WriteJSON(e.Stdout, map[string]any{"threshold": c.Int("threshold"), "skills": ranked})
			}
			tw := tabwriter.NewWriter(e.Stdout, 0, 0, 2, ' ', 0)
			n := 0
			for _, s := range ranked {
				if !s.Selected {
					continue
				}
				if n == 0 {
					fmt.Fprintln(tw, "SKILL\tSCORE\tPRIORITY\tMATCHED")
				}
				n++
				fmt.Fprintf(tw, "%s\t%d\t%d\t%s\n", command.TermLine(s.Name), s.Score, s.Priority, command.TermLine(strings.Join(s.Matches, ", ")))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if n == 0 {
				e.Logf("no skill scores %d or more (of %d installed)", c.Int("threshold"), len(cat.Skills))
			}
			return nil
		},
	}
}
