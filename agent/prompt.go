package agent

import (
	"encoding/xml"
	"strings"
)

// PromptXML returns the <available_skills> block of the Agent Skills spec
// (§5.3): name, description and the absolute location of SKILL.md for each
// skill, for agents that read skills from the filesystem.
func (c *Catalog) PromptXML() string { return promptXML(c.Skills) }

func promptXML(skills []*Skill) string {
	var b strings.Builder
	b.WriteString(xmlOpen)
	for _, s := range skills {
		b.WriteString("  <skill>\n")
		element(&b, "name", s.Name)
		element(&b, "description", oneLine(s.Description))
		element(&b, "location", s.Location)
		b.WriteString("  </skill>\n")
	}
	b.WriteString(xmlClose)
	return b.String()
}

const (
	xmlOpen  = "<available_skills>\n"
	xmlClose = "</available_skills>\n"
)

func element(b *strings.Builder, name, text string) {
	b.WriteString("    <" + name + ">")
	xml.EscapeText(b, []byte(text)) // a strings.Builder never fails
	b.WriteString("</" + name + ">\n")
}

// markdownIntro is the fixed part of the skills-as-tools system prompt
// section.
const markdownIntro = `## Available Skills

You have access to skills that help you perform specific tasks. Each skill has instructions and scripts you can run.

To use a skill:
1. Call load_skill to read its instructions
2. Follow the instructions, calling use_skill to run scripts as directed
`

// PromptMarkdown returns the "## Available Skills" system prompt section of
// the skills-as-tools proposal, for agents that use the load_skill and
// use_skill tools.
func (c *Catalog) PromptMarkdown() string { return promptMarkdown(c.Skills) }

func promptMarkdown(skills []*Skill) string {
	var b strings.Builder
	b.WriteString(markdownIntro)
	for _, s := range skills {
		b.WriteString("\n### " + s.Name + "\n")
		b.WriteString(oneLine(s.Description) + "\n")
	}
	return b.String()
}

// oneLine folds a description's line breaks, which would otherwise break
// list and heading structure.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
