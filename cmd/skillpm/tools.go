package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
)

// catalogFlags are the flags of every command that reads the installed
// skills.
func catalogFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project", Aliases: []string{"C"}, Usage: "read project skills under `DIR` (default: the current folder)"},
		&cli.BoolFlag{Name: "no-index", Usage: "parse every SKILL.md instead of reading the metadata index"},
	}
}

// runFlags are the flags of the commands that run tools or scripts.
func runFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "workdir", Usage: "run in `DIR` and pass it as __workDir (default: the current folder)"},
		&cli.DurationFlag{Name: "timeout", Usage: "limit every run to `DURATION`; a tool's own timeout_seconds applies only when lower (default: the tool's own, at most 10m; 30s for tools without one)"},
		&cli.StringSliceFlag{Name: "env", Usage: "let skills receive the environment variable `NAME` if they declare it as a secret (repeatable; also tools.env in config.yaml)"},
		sandboxFlag(),
		yesFlag(),
		&cli.StringFlag{Name: "audit-log", Usage: "append one JSON line per run to `FILE` (default: $SKILLPM_HOME/audit.jsonl, else $XDG_STATE_HOME/skillpm/audit.jsonl)"},
	}
}

// runOptions turns the run flags, the user config's tools.env and the
// project's skills.yaml into toolrun options. The child's live stderr is
// copied to ours unless --quiet; withheld secrets are warned about.
func runOptions(e *env, c *cli.Context) (toolrun.Options, error) {
	o := toolrun.Options{WorkDir: c.String("workdir"), Timeout: c.Duration("timeout"), Groups: &e.groups}
	o.MaxOutput = c.Int("max-output") // 0 (also when the command has no --max-output): the default
	if o.Timeout < 0 {
		return o, usageErrorf(c, "--timeout %s is negative", o.Timeout)
	}
	for _, n := range c.StringSlice("env") {
		if !toolrun.ValidEnvName(n) {
			return o, usageErrorf(c, "--env %q is not an environment variable name (give the name only, not NAME=VALUE)", n)
		}
		o.AllowEnv = append(o.AllowEnv, n)
	}
	cfg, err := e.userConfig()
	if err != nil {
		return o, err
	}
	o.Grants = cfg.Tools.Env
	mode, err := sandboxMode(c, cfg.Tools.Sandbox)
	if err != nil {
		return o, err
	}
	if dir, err := projectDir(c); err == nil {
		switch m, err := project.Load(dir); {
		case err == nil:
			mode = tightenSandbox(e, mode, m)
			// skills.yaml comes with the repository, not from the user: it
			// may grant only names that are not sensitive.
			safe, refused := m.Tools.Env.Untrusted()
			for _, r := range refused {
				if !cfg.Tools.Env.Allows(r.Skill, r.Name) {
					e.logf("warning: %s grants %s to skill %q, but a project file may not grant a sensitive variable; allow it with --env %s or under tools.env in the user config", m.Path(), r.Name, r.Skill, r.Name)
				}
			}
			o.Grants = o.Grants.Merge(safe)
		case !errors.Is(err, project.ErrNotFound):
			return o, err
		}
	}
	o.Sandbox = &toolrun.Sandbox{Mode: mode, Warn: func(msg string) { e.logf("warning: %s", msg) }}
	o.Audit = auditLog(e, c)
	o.Confirm = confirmFunc(e, c)
	if !e.quiet {
		o.Stderr = e.stderr
	}
	var mu sync.Mutex
	warned := map[string]bool{}
	o.Withheld = func(skill string, names []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range names {
			if warned[skill+"\x00"+n] {
				continue
			}
			warned[skill+"\x00"+n] = true
			e.logf("warning: skill %q declares the secret %s, which is set but not allowed for it, so it was not passed; allow it with --env %s, or with tools.env: {%s: [%s]} in the user config", skill, n, n, skill, n)
		}
	}
	return o, nil
}

// loadCatalog discovers the effective skills of the project (--project,
// else the nearest folder up with skills.yaml, else the current folder, as
// for list) and of $HOME, through the index unless --no-index, and warns
// about skills that cannot be read.
func loadCatalog(ctx context.Context, e *env, c *cli.Context) (*agent.Catalog, error) {
	project, err := projectDir(c)
	if err != nil {
		return nil, fmt.Errorf("project folder: %w", err)
	}
	if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
		return nil, usageErrorf(c, "project folder %s does not exist", project)
	}
	home, _ := os.UserHomeDir() // no home: no user scope
	opts := agent.Options{Project: project, Home: home}
	if !c.Bool("no-index") {
		opts.IndexPath, _ = indexPath() // no cache folder: no index
	}
	start := time.Now()
	cat, err := agent.Build(ctx, opts)
	if err != nil {
		return nil, err
	}
	st := cat.Index
	e.debugf("catalog: %d skills, %d tools in %s (index %s: %d hits, %d misses, read error %v, wrote %v, write error %v)",
		len(cat.Skills), len(cat.Tools), time.Since(start).Round(time.Microsecond), opts.IndexPath, st.Hits, st.Misses, st.ReadErr, st.Wrote, st.WriteErr)
	if st.Rebuilt {
		e.logf("warning: the metadata index was corrupt and has been rebuilt (%s)", opts.IndexPath)
	}
	for _, p := range cat.Problems {
		e.logf("warning: skipping %s: %v", p.Dir, p.Err)
	}
	return cat, nil
}

func toolsCommand(e *env) *cli.Command {
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
			hostFlag(),
		}, append(filterFlags(), catalogFlags()...)...),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "tools takes no arguments")
			}
			if dir := c.String("write-tools-json"); dir != "" {
				if c.IsSet("format") {
					return usageErrorf(c, "--write-tools-json and --format do not go together")
				}
				return writeToolsJSON(e, dir)
			}
			var host agent.Host
			if f := c.String("format"); f != "" {
				h, err := agent.ParseHost(f)
				if err != nil {
					return usageErrorf(c, "%v", err)
				}
				host = h
			}
			cat, err := prepareCatalog(c.Context, e, c)
			if err != nil {
				return err
			}
			for _, cf := range cat.Conflicts {
				e.logf("warning: %s", cf)
			}
			if host != "" {
				return writeJSON(e.stdout, cat.ToolDefinitions(host, c.Bool("builtins")))
			}
			if e.json {
				mode, err := configuredSandbox(e, c)
				if err != nil {
					return err
				}
				return streamToolsJSON(e.stdout, cat, mode)
			}
			printTools(e, cat)
			return nil
		},
	}
}

// toolJSON is one tool in 'skillpm tools --json'.
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

func printTools(e *env, cat *agent.Catalog) {
	if len(cat.Tools) == 0 {
		e.logf("no tools: the %d installed skills declare none", len(cat.Skills))
		return
	}
	tw := newTable(e.stdout, 0, 0, 2)
	fmt.Fprintln(tw, "TOOL\tSKILL\tRUNTIME\tSOURCE\tDESCRIPTION")
	for _, t := range cat.Tools {
		file := skill.FileName
		if t.Source == skill.FromToolsJSON {
			file = skill.ToolsFileName
		}
		src := t.Skill.Root + "/" + filepath.Base(t.Skill.Dir) + "/" + file
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termLine(t.Name), termLine(t.Skill.Name), termLine(runtimeLabel(t.Tool)), termLine(src), termLine(shorten(t.Description, 60)))
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
