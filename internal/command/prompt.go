package command

import (
	"fmt"
	"io"
	"strings"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

func PromptCommand(e *Env) *cli.Command {
	return &cli.Command{
		Name:  "prompt",
		Usage: "print the system prompt section that lists the installed skills",
		UsageText: `skillpm prompt [options]

--format xml (the default) prints the <available_skills> block of the Agent
Skills spec: name, description and the absolute location of SKILL.md, for
agents that read skills from the filesystem. --format markdown prints the
"## Available Skills" section of the skills-as-tools proposal, for agents that
call the load_skill and use_skill tools (skillpm mcp serves them).

--for TEXT lists only the skills 'skillpm select TEXT' selects (with --file,
--intent and --threshold), best first. --max-chars N keeps the section within
N characters: skills are offered best first (by selection with --for, else by
when_to_use.priority, then name), a skill that does not fit is left out and
later ones are still tried; what was left out is named on stderr. --host
applies the skills' host_overrides for that host.

Examples:
  skillpm prompt
  skillpm prompt --format markdown >> system-prompt.md
  skillpm prompt --for "extract the text of report.pdf" --max-chars 8000
  skillpm prompt --host claude-code --exclude 'draft-*'
  skillpm prompt --json`,
		Flags: append(append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "xml", Usage: "`FORMAT` of the section: xml or markdown"},
			&cli.StringFlag{Name: "for", Usage: "list only the skills selected for the request `TEXT`, best first"},
			&cli.IntFlag{Name: "max-chars", Usage: "keep the section within `N` characters, best skills first"},
			HostFlag(),
		}, SelectionFlags()...), append(FilterFlags(), CatalogFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return UsageErrorf(c, "prompt takes no arguments")
			}
			format := c.String("format")
			if format != "xml" && format != "markdown" && format != "md" {
				return UsageErrorf(c, "unknown prompt format %q; want xml or markdown", format)
			}
			if c.Int("max-chars") < 0 {
				return UsageErrorf(c, "--max-chars must be positive")
			}
			if format == "md" {
				format = "markdown"
			}
			cat, err := PrepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			text, listed := promptText(e, c, cat, format)
			if e.JSON {
				type skillJSON struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					Location    string `json:"location"`
				}
				skills := []skillJSON{}
				for _, s := range listed {
					skills = append(skills, skillJSON{s.Name, s.Description, s.Location})
				}
				return WriteJSON(e.Stdout, map[string]any{"format": format, "prompt": text, "skills": skills})
			}
			_, err = io.WriteString(e.Stdout, TermText(text))
			if err != nil {
				return fmt.Errorf("write prompt: %w", err)
			}
			return nil
		},
	}
}

// promptText renders the prompt section of the skills --for selects (all
// when it is not given), best first, within --max-chars, and returns it
// with the skills it lists, in its order. It names what it left out on
// stderr.
func promptText(e *Env, c *cli.Context, cat *agent.Catalog, format string) (string, []*agent.Skill) {
	q := skill.Query{Threshold: -1} // no --for: every skill, priority then name
	if c.IsSet("for") {
		q = SelectQuery(c, c.String("for"))
	}
	var names []string
	for _, s := range cat.Rank(q) {
		if s.Selected {
			names = append(names, s.Name)
		}
	}
	if c.IsSet("for") {
		e.Debugf("prompt: %d of %d skills selected for %q", len(names), len(cat.Skills), c.String("for"))
		if len(names) == 0 {
			e.Logf("prompt: no skill is selected for %q (threshold %d)", c.String("for"), c.Int("threshold"))
		}
	}
	if !c.IsSet("for") && !c.IsSet("max-chars") {
		// The plain listing stays in name order, as before.
		if format == "xml" {
			return cat.PromptXML(), cat.Skills
		}
		return cat.PromptMarkdown(), cat.Skills
	}
	b := agent.PromptWithin(format, cat.Ordered(names), c.Int("max-chars"))
	if len(b.Left) > 0 {
		e.Logf("prompt: left out %d skills to fit %d characters: %s", len(b.Left), c.Int("max-chars"), strings.Join(b.Left, ", "))
	}
	return b.Text, cat.Ordered(b.Kept)
}
