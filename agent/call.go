package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/toolrun"
)

// Names of the built-in tools of the skills-as-tools proposal.
const (
	LoadSkillTool = "load_skill"
	UseSkillTool  = "use_skill"
)

// Builtin is the definition of a built-in tool.
type Builtin struct {
	Name        string
	Description string
	InputSchema json.RawMessage
}

// Builtins returns the load_skill and use_skill definitions, with the
// skills-as-tools proposal's wording.
func (c *Catalog) Builtins() []Builtin {
	return []Builtin{
		{
			Name:        LoadSkillTool,
			Description: "Load the full instructions for a skill. Call this before using a skill for the first time.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string","description":"Name of the skill to load (folder name)"}},"required":["skill"],"additionalProperties":false}`),
		},
		{
			Name:        UseSkillTool,
			Description: "Run a script from a skill folder. The skill instructions tell you which scripts to call and with what arguments.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"skill":{"type":"string","description":"Name of the skill (folder name)"},"script":{"type":"string","description":"Script filename to run (e.g. \"discord.mjs\")"},"args":{"type":"array","items":{"type":"string"},"description":"Arguments to pass to the script as individual items (e.g. [\"channels\", \"list\"] or [\"send\", \"Hello World\", \"--channel=123\"])"}},"required":["skill","script"],"additionalProperties":false}`),
		},
	}
}

// LoadSkill returns what the load_skill tool answers: the skill's body
// without its frontmatter, headed as the Skill tool contract shows:
//
//	Skill: {name} (Type: {personal|project})
//	Path: {skill folder}
//
//	{body}
//
// For an unknown skill the text is the contract's not-found message with the
// list of available skills, and err is a *NotFoundError; for a skill that
// exists but is not served (unreadable, or skipped by Screen) it is the
// contract's "Skill 'X' is invalid: ... Fix by: ..." message and err is an
// *InvalidError; for a skill that can no longer be read it is the
// contract's "Error invoking skill" message.
// The text is always the thing to hand to the agent.
func (c *Catalog) LoadSkill(name string) (string, error) {
	s, err := c.Skill(name)
	if err != nil {
		if inv := c.invalid(name); inv != nil {
			return invalidText(inv), inv
		}
		return c.notFoundText(name), err
	}
	sk, err := skill.Load(s.Dir)
	if err != nil {
		return fmt.Sprintf("Error invoking skill '%s': %v\n\n%s", name, err, c.availableText()), err
	}
	body := strings.TrimLeft(sk.Body, "\n")
	body = strings.TrimRight(body, " \t\n") + "\n"
	return fmt.Sprintf("Skill: %s (Type: %s)\nPath: %s\n\n%s", s.Name, s.Type(), s.Dir, body), nil
}

// notFoundText is the Skill tool contract's not-found message.
func (c *Catalog) notFoundText(name string) string {
	return fmt.Sprintf("Skill '%s' not found.\n\n%s\nTo create this skill:\n1. Create directory .agents/skills/%s/ (or install it: skillpm add %s)\n2. Add SKILL.md file with proper YAML frontmatter\n",
		name, c.availableText(), name, name)
}

func (c *Catalog) availableText() string {
	var b strings.Builder
	b.WriteString("Available skills:\n")
	if len(c.Skills) == 0 {
		b.WriteString("(none installed)\n")
	}
	for _, s := range c.Skills {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, oneLine(s.Description))
	}
	return b.String()
}

// UseSkill runs script from the named skill's folder with args, the
// use_skill contract (see toolrun.Exec). The skill's declared secrets are
// passed through when opts grants them to it. An unknown skill gives a SkillNotFound result whose
// message lists the installed skills.
func (c *Catalog) UseSkill(ctx context.Context, name, script string, args []string, opts toolrun.Options) (*toolrun.ExecResult, error) {
	s, err := c.Skill(name)
	if err != nil {
		e := &toolrun.Error{Kind: toolrun.SkillNotFound, Skill: name, Script: script, Msg: "not installed; " + availableNames(err)}
		return &toolrun.ExecResult{ExitCode: -1, Error: e.Error(), ErrorType: e.Kind}, e
	}
	return toolrun.Exec(ctx, toolrun.Script{Skill: s.Name, Dir: s.Dir, Path: script, Args: args, Secrets: s.Secrets,
		Permissions: Permissions(s.Permissions), Confirm: s.ScriptConfirmation(script), Origin: s.origin()}, opts)
}

func availableNames(err error) string {
	nf, ok := err.(*NotFoundError)
	if !ok || len(nf.Available) == 0 {
		return "no skills are installed"
	}
	return "available skills: " + strings.Join(nf.Available, ", ")
}

// RunTool is what toolrun needs to run t: the skill folder, runtime,
// entrypoint, handler, schema, per-tool timeout (capped by the run's
// limit, see toolrun.Options.Timeout) and the skill's declared secrets.
func (t Tool) RunTool() toolrun.Tool {
	return toolrun.Tool{
		Skill:        t.Skill.Name,
		Dir:          t.Skill.Dir,
		Name:         t.Name,
		Runtime:      t.Runtime,
		Entrypoint:   t.Entrypoint,
		Handler:      t.Handler,
		Timeout:      toolrun.Seconds(int64(t.TimeoutSeconds)),
		InputSchema:  t.InputSchema,
		OutputSchema: t.OutputSchema,
		Secrets:      t.Skill.Secrets,
		Permissions:  Permissions(t.Skill.Permissions),
		Confirm:      t.Confirmation(),
		Origin:       t.Skill.origin(),
	}
}

// origin identifies the skill for the audit log.
func (s *Skill) origin() toolrun.Origin {
	v := s.Version
	if s.installed != "" {
		v = s.installed
	}
	return toolrun.Origin{Version: v, Manifest: s.Manifest, Tree: s.Tree}
}

// CallTool runs the effective tool called name with input (a JSON object)
// through toolrun.RunTool. An unknown name gives a *NotFoundError and a nil
// result. A tool without a script (a Skill Tools stub) answers, without
// running anything, that the agent should load the skill's instructions.
func (c *Catalog) CallTool(ctx context.Context, name string, input json.RawMessage, opts toolrun.Options) (*toolrun.Result, error) {
	t, err := c.Tool(name)
	if err != nil {
		return nil, err
	}
	if t.Entrypoint == "" {
		msg, _ := json.Marshal(map[string]string{
			"message": fmt.Sprintf("tool %q has no handler script; call %s with skill %q and follow its instructions", t.Name, LoadSkillTool, t.Skill.Name),
		})
		return &toolrun.Result{Output: msg}, nil
	}
	return toolrun.RunTool(ctx, t.RunTool(), input, opts)
}
