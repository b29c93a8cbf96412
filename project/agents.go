package project

import (
	"fmt"
	"slices"

	"github.com/skillpm/skillpm/agent"
	"gopkg.in/yaml.v3"
)

// DefaultAgents are the agents the default targets serve: Claude Code
// (.claude/skills) and Codex (.agents/skills, which most other agents read
// too). agent.TargetsFor(DefaultAgents(), false) is DefaultTargets().
func DefaultAgents() []string { return []string{"claude-code", "codex"} }

// validateAgents checks skills.yaml's agents: every ID is in agent.Programs
// (the error wraps agent.ErrUnknownAgent and lists the known ones) and
// none is named twice.
func (m *Manifest) validateAgents() error {
	for i, id := range m.Agents {
		if _, err := agent.LookupProgram(id); err != nil {
			return fmt.Errorf("agents: %w", err)
		}
		if slices.Contains(m.Agents[:i], id) {
			return fmt.Errorf("agents: %q is named twice", id)
		}
	}
	return nil
}

// agentTargets returns the folders agents: and targets: install into
// together: the agents' folders first (agent.TargetsFor, in the order
// agents: names them), then each target not already among them. In the
// user scope (user set) targets: is not used: the agents' user folders
// are the targets. agents: is validated by Parse, so an unknown ID cannot
// reach here; one set by hand on a Manifest is left out.
func (m *Manifest) agentTargets(user bool) []string {
	return unionTargets(m.Agents, m.Targets, user)
}

func unionTargets(ids, targets []string, user bool) []string {
	out, _ := agent.TargetsFor(known(ids), user)
	if user {
		return out
	}
	for _, t := range targets {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func known(ids []string) []string {
	var out []string
	for _, id := range ids {
		if _, err := agent.LookupProgram(id); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// UserTargets returns the folders, relative to the home folder, that the
// user scope (skillpm -g) installs into: the user folders of agents: when
// it names any, else ~/.claude/skills and ~/.agents/skills.
func (m *Manifest) UserTargets() []string {
	if len(m.Agents) > 0 {
		return m.agentTargets(true)
	}
	return DefaultTargets()
}

// AddAgents records agents in skills.yaml's agents: when that changes the
// folders skills install into (InstallTargets, or UserTargets when user is
// set), and reports whether it did. An agent whose folders are already
// targets is not recorded: skills.yaml stays as it was.
//
// A manifest that lists skills but names neither agents nor targets
// installs into the default folders; it is taken to name DefaultAgents,
// so recording a further agent keeps the folders its skills are in. A
// new manifest (no skills, agents or targets yet) records the agents given
// even when their folders are the default ones: the user said whom the
// project is for.
//
// An unknown ID is an error wrapping agent.ErrUnknownAgent, and nothing is
// changed.
func (m *Manifest) AddAgents(ids []string, user bool) (bool, error) {
	for _, id := range ids {
		if _, err := agent.LookupProgram(id); err != nil {
			return false, fmt.Errorf("agent: %w", err)
		}
	}
	current := m.InstallTargets
	if user {
		current = m.UserTargets
	}
	before := current()
	agents := slices.Clone(m.Agents)
	if len(agents) == 0 && (len(m.Targets) == 0 || user) && len(m.Skills) > 0 {
		agents = DefaultAgents()
	}
	for _, id := range ids {
		if !slices.Contains(agents, id) {
			agents = append(agents, id)
		}
	}
	fresh := len(m.Skills) == 0 && len(m.Agents) == 0 && len(m.Targets) == 0
	after := unionTargets(agents, m.Targets, user)
	if !fresh && sameSet(before, after) {
		return false, nil
	}
	m.Agents = agents
	m.setAgentsNode()
	return true, nil
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// setAgentsNode writes m.Agents into the YAML tree as a flow sequence
// (agents: [claude-code, codex]), before skills: when the key is new.
func (m *Manifest) setAgentsNode() {
	m.skillsNode() // makes the document
	root := m.doc.Content[0]
	seq := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle}
	for _, id := range m.Agents {
		seq.Content = append(seq.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: id})
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "agents" {
			root.Content[i+1] = seq
			return
		}
	}
	at := len(root.Content)
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "skills" {
			at = i
			break
		}
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "agents"}
	root.Content = slices.Insert(root.Content, at, key, seq)
}
