package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

func promptCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "prompt",
		Usage: "print the system prompt section that lists the installed skills",
		UsageText: `skillpm prompt [options]

--format xml (the default) prints the <available_skills> block of the Agent
Skills spec: name, description and the absolute location of SKILL.md, for
agents that read skills from the filesystem. --format markdown prints the
"## Available Skills" section of the skills-as-tools proposal, for agents that
call the load_skill and use_skill tools (skillpm mcp serves them).

Examples:
  skillpm prompt
  skillpm prompt --format markdown >> system-prompt.md
  skillpm prompt --json`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "xml", Usage: "`FORMAT` of the section: xml or markdown"},
		}, catalogFlags()...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "prompt takes no arguments")
			}
			format := c.String("format")
			if format != "xml" && format != "markdown" && format != "md" {
				return usageErrorf(c, "unknown prompt format %q; want xml or markdown", format)
			}
			cat, err := loadCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			text := cat.PromptXML()
			if format != "xml" {
				format, text = "markdown", cat.PromptMarkdown()
			}
			if e.json {
				type skillJSON struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					Location    string `json:"location"`
				}
				skills := []skillJSON{}
				for _, s := range cat.Skills {
					skills = append(skills, skillJSON{s.Name, s.Description, s.Location})
				}
				return writeJSON(e.stdout, map[string]any{"format": format, "prompt": text, "skills": skills})
			}
			_, err = io.WriteString(e.stdout, termText(text))
			if err != nil {
				return fmt.Errorf("write prompt: %w", err)
			}
			return nil
		},
	}
}
