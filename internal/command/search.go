package command

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/skillpm/skillpm/index"
	"github.com/urfave/cli/v2"
)

func SearchCommand(e *Env) *cli.Command {
	return &cli.Command{
		Name:  "search",
		Usage: "search the skills of the configured registries",
		UsageText: `skillpm search [options] QUERY...

Every word must match a skill's name, description, tags or tool names;
name matches rank first. Search reads the local index: fill it with
'skillpm index refresh'.

Examples:
  skillpm search pdf
  skillpm search release notes --limit 5 --json`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "limit", Value: 20, Usage: "show at most `N` results (0: all)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return UsageErrorf(c, "search needs a query")
			}
			o := searchOptions{query: strings.Join(c.Args().Slice(), " "), limit: c.Int("limit")}
			var err error
			if o.index, err = IndexPath(); err != nil {
				return err
			}
			hits, err := index.Search(o.index, o.query, o.limit)
			if errors.Is(err, fs.ErrNotExist) {
				return &UsageError{Msg: "the search index is empty", Hint: "run 'skillpm index refresh' (registries come from search.registries in the user config and the project's skills.yaml)"}
			}
			if err != nil {
				return err
			}
			return printSearch(e, hits)
		},
	}
}

// searchOptions are search's flags and arguments.
type searchOptions struct {
	query string // the words to match, joined by spaces
	limit int    // --limit: at most this many hits; 0 is all
	index string // the index file (IndexPath)
}

// printSearch prints the hits as a table, or as JSON.
func printSearch(e *Env, hits []index.Hit) error {
	if e.JSON {
		return WriteJSON(e.Stdout, NonNil(hits))
	}
	if len(hits) == 0 {
		if !e.Quiet {
			fmt.Fprintln(e.Stdout, "no skills match")
		}
		return nil
	}
	tw := NewTable(e.Stdout, 0, 4, 2)
	fmt.Fprintln(tw, "NAME\tVERSION\tREPOSITORY\tDESCRIPTION")
	for _, h := range hits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", TermLine(h.Name), TermLine(h.Version), TermLine(h.Repository), TermLine(truncate(h.Description, 60)))
	}
	return tw.Flush()
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
