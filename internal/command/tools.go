package command

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

func ToolsCommand(e *Env) *cli.Command {
	return &cli.Command{
		Name:  "tools",
		Usage: "list the tools that installed skills declare",
		UsageText: `skillpm tools [options]

Lists every tool of every effective installed skill: user skills (~/.claude/skills,
~/.agents/skills, ...) first, then project skills (skills/, .claude/skills,
.agents/skills, ...); a later folder overrides an earlier one. When two skills
declare the same tool name, the skill loaded later wins and a warning names both.

Examples:
  skillpm tools
  skillpm tools --json
  skillpm tools --format openai --builtins > tools.json
  skillpm tools --format openai-responses
  skillpm tools --write-tools-json skills/pdf
  skillpm tools -C ~/src/app --format mcp
  skillpm tools --format openai --host openai-responses --exclude 'experimental-*'`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "print tool definitions for `HOST`: mcp, openai (Chat Completions), openai-responses (Responses API) or anthropic"},
			&cli.StringFlag{Name: "write-tools-json", Usage: "regenerate `DIR`/tools.json from DIR/SKILL.md's frontmatter tools (deterministic bytes)"},
			&cli.BoolFlag{Name: "builtins", Usage: "with --format, also define the load_skill and use_skill tools"},
			HostFlag(),
		}, append(FilterFlags(), CatalogFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return UsageErrorf(c, "tools takes no arguments")
			}
			if dir := c.String("write-tools-json"); dir != "" {
				if c.IsSet("format") {
					return UsageErrorf(c, "--write-tools-json and --format do not go together")
				}
				return writeToolsJSON(e, dir)
			}
			var host agent.Host
			if f := c.String("format"); f != "" {
				h, err := agent.ParseHost(f)
				if err != nil {
					return UsageErrorf(c, "%v", err)
				}
				host = h
			}
			cat, err := PrepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			for _, cf := range cat.Conflicts {
				e.Logf("warning: %s", cf)
			}
			if host != "" {
				defs, unfit := cat.ToolDefinitions(host, c.Bool("builtins"))
				for _, u := range unfit {
					e.Logf("warning: %s", u)
				}
				return WriteJSON(e.Stdout, defs)
			}
			if e.JSON {
				mode, err := configuredSandbox(e, c)
				if err != nil {
					return err
				}
				return streamToolsJSON(e.Stdout, cat, mode)
			}
			printTools(e, cat)
			return nil
		},
	}
}

// toolJSON is one tool in 'skillpm tools --json'. streamToolsJSON writes
// it field by field (appendToolJSON); TestStreamToolsJSONBytes checks
// that the bytes are encoding/json's of this struct.
type toolJSON struct {
	Tool           string         `json:"tool"`
	Skill          string         `json:"skill"`
	Description    string         `json:"description"`
	InputSchema    any            `json:"inputSchema"`
	OutputSchema   any            `json:"outputSchema,omitempty"`
	Runtime        string         `json:"runtime"`
	Entrypoint     string         `json:"entrypoint,omitempty"`
	TimeoutSeconds int            `json:"timeoutSeconds,omitempty"`
	Source         toolSourceJSON `json:"source"`
	// Sandbox says what running the tool enforces here.
	Sandbox sandbox.Summary `json:"sandbox"`
}

type toolSourceJSON struct {
	File   string `json:"file"`   // SKILL.md or tools.json, absolute
	Format string `json:"format"` // universal or skill-tools
	Scope  string `json:"scope"`  // user or project
	Root   string `json:"root"`   // discovery folder
}

// runtimeLabel names how a tool runs: its runtime, "exec" for a script
// run directly, "stub" for a tool without a script.
func runtimeLabel(t skill.Tool) string {
	switch {
	case t.Entrypoint == "":
		return "stub"
	case t.Runtime != "":
		return t.Runtime
	}
	return "exec"
}

func printTools(e *Env, cat *agent.Catalog) {
	if len(cat.Tools) == 0 {
		e.Logf("no tools: the %d installed skills declare none", len(cat.Skills))
		return
	}
	tw := NewTable(e.Stdout, 0, 0, 2)
	fmt.Fprintln(tw, "TOOL\tSKILL\tRUNTIME\tSOURCE\tDESCRIPTION")
	for _, t := range cat.Tools {
		file := skill.FileName
		if t.Source == skill.FromToolsJSON {
			file = skill.ToolsFileName
		}
		src := t.Skill.Root + "/" + filepath.Base(t.Skill.Dir) + "/" + file
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", TermLine(t.Name), TermLine(t.Skill.Name), TermLine(runtimeLabel(t.Tool)), TermLine(src), TermLine(shorten(t.Description, 60)))
	}
	tw.Flush()
}

// shorten returns the first line of s, cut to n runes.
func shorten(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
