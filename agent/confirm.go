package agent

import (
	"fmt"
	"slices"

	"github.com/skillpm/skillpm/toolrun"
)

// Confirmation returns the gate in front of the tool, or nil when it runs
// without asking. The tool's own confirmation.level decides when it has
// one ("never" turns the gate off, anything else turns it on, with the
// tool's prompt). Otherwise the skill's safety.require_confirmation_for
// applies to what the skill declares it may do: "always" gates every
// tool, "destructive_writes" gates the tools of a skill that may write
// (declared filesystem.write globs), "external_network" those of a skill
// that may reach hosts (declared network.outbound).
func (t Tool) Confirmation() *toolrun.Confirmation {
	if c := t.Tool.Confirmation; c != nil && c.Level != "" {
		if c.Level == toolrun.ConfirmNever {
			return nil
		}
		return &toolrun.Confirmation{Level: c.Level, Prompt: promptOr(c.Prompt, c.Level, fmt.Sprintf("tool %q", t.Name))}
	}
	c := t.Skill.confirmation()
	if c != nil {
		if p := t.Tool.Confirmation; p != nil && p.Prompt != "" {
			c.Prompt = p.Prompt
		} else {
			c.Prompt = promptOr("", c.Level, fmt.Sprintf("tool %q", t.Name))
		}
	}
	return c
}

// ScriptConfirmation returns the gate in front of the skill's scripts
// (use_skill, skillpm exec): the skill's require_confirmation_for applied
// as for a tool without a confirmation level.
func (s *Skill) ScriptConfirmation(script string) *toolrun.Confirmation {
	c := s.confirmation()
	if c != nil {
		c.Prompt = promptOr("", c.Level, fmt.Sprintf("script %q", script))
	}
	return c
}

// confirmation applies require_confirmation_for to what the skill
// declares; the prompt is left for the caller.
func (s *Skill) confirmation() *toolrun.Confirmation {
	req := s.RequireConfirmation
	switch {
	case slices.Contains(req, toolrun.ConfirmAlways):
		return &toolrun.Confirmation{Level: toolrun.ConfirmAlways}
	case s.Permissions == nil:
		return nil // declares nothing it may do: nothing to match
	case slices.Contains(req, toolrun.ConfirmDestructiveWrites) && len(s.Permissions.Filesystem.Write) > 0:
		return &toolrun.Confirmation{Level: toolrun.ConfirmDestructiveWrites}
	case slices.Contains(req, toolrun.ConfirmExternalNetwork) && len(s.Permissions.Network.Outbound) > 0:
		return &toolrun.Confirmation{Level: toolrun.ConfirmExternalNetwork}
	}
	return nil
}

// promptOr returns prompt, or a sentence made from level for what.
func promptOr(prompt, level, what string) string {
	if prompt != "" {
		return prompt
	}
	switch level {
	case toolrun.ConfirmDestructiveWrites:
		return fmt.Sprintf("Run %s? It may change or delete files.", what)
	case toolrun.ConfirmExternalNetwork:
		return fmt.Sprintf("Run %s? It may send data to hosts outside this machine.", what)
	}
	return fmt.Sprintf("Run %s?", what)
}
