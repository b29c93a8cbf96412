package skill

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/internal/lazyre"
	"gopkg.in/yaml.v3"
)

// Rule describes one lint rule. IDs are stable: scripts and CI configs may
// depend on them.
type Rule struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Profile  Profile  `json:"profile"`
	Summary  string   `json:"summary"`
}

// Rules returns every lint rule, in documentation order.
func Rules() []Rule { return slices.Concat(rules, formatRules) }

var rules = []Rule{
	{"skill-md-missing", SeverityError, ProfileAgentSkills, "the folder has a SKILL.md regular file"},
	{"unreadable", SeverityError, ProfileAgentSkills, "SKILL.md and tools.json can be read"},
	{"encoding", SeverityError, ProfileAgentSkills, "SKILL.md is UTF-8 text, not binary"},
	{"file-too-large", SeverityError, ProfileAgentSkills, "SKILL.md is at most 8 MiB"},
	{"bom", SeverityWarning, ProfileAgentSkills, "SKILL.md has no byte order mark"},
	{"frontmatter-missing", SeverityError, ProfileAgentSkills, "SKILL.md starts with a '---' line"},
	{"frontmatter-unclosed", SeverityError, ProfileAgentSkills, "frontmatter ends with a '---' line"},
	{"frontmatter-too-large", SeverityError, ProfileAgentSkills, "frontmatter is at most 64 KiB"},
	{"frontmatter-not-mapping", SeverityError, ProfileAgentSkills, "frontmatter is a YAML mapping"},
	{"yaml-syntax", SeverityError, ProfileAgentSkills, "frontmatter is valid YAML"},
	{"yaml-too-complex", SeverityError, ProfileAgentSkills, "frontmatter has no alias bombs or deep nesting"},
	{"yaml-duplicate-key", SeverityError, ProfileAgentSkills, "no frontmatter key appears twice"},
	{"field-type", SeverityError, ProfileAgentSkills, "each field has the type its spec gives it"},
	{"name-missing", SeverityError, ProfileAgentSkills, "name is set"},
	{"name-format", SeverityError, ProfileAgentSkills, "name is lowercase letters, digits and single inner hyphens"},
	{"name-length", SeverityError, ProfileAgentSkills, "name is 1-64 characters"},
	{"name-mismatch", SeverityError, ProfileAgentSkills, "name equals the folder name"},
	{"name-reserved", SeverityError, ProfileAgentSkills, "name avoids host-reserved words (anthropic, claude), which the Claude API rejects"},
	{"description-missing", SeverityError, ProfileAgentSkills, "description is set"},
	{"description-length", SeverityError, ProfileAgentSkills, "description is at most 1024 characters"},
	{"description-xml", SeverityError, ProfileAgentSkills, "description contains no XML tags"},
	{"compatibility-length", SeverityError, ProfileAgentSkills, "compatibility is at most 500 characters"},
	{"text-control", SeverityError, ProfileAgentSkills, "frontmatter text holds no terminal controls (ESC, BEL, C1, bidi overrides)"},
	{"allowed-tools-format", SeverityWarning, ProfileAgentSkills, "allowed-tools is a space-delimited string"},
	{"unknown-field", SeverityWarning, ProfileAgentSkills, "frontmatter keys are ones a supported spec defines"},
	{"version-semver", SeverityError, ProfileAgentSkills, "version is a semantic version (1.2.3)"},
	{"depends-on-invalid", SeverityError, ProfileAgentSkills, "depends_on entries are name@constraint with a valid semver constraint"},
	{"body-empty", SeverityWarning, ProfileAgentSkills, "SKILL.md has instructions after the frontmatter"},
	{"link-outside", SeverityError, ProfileAgentSkills, "relative links stay inside the skill folder"},
	{"link-broken", SeverityError, ProfileAgentSkills, "relative links point at files that exist"},
	{"universal-schema", SeverityError, ProfileUniversal, "frontmatter validates against the Universal schema (Appendix A)"},
	{"permissions-broad", SeverityWarning, ProfileUniversal, "permissions are least-privilege (no **/* or * grants)"},
	{"tools-json-syntax", SeverityError, ProfileSkillTools, "tools.json is a JSON array"},
	{"tools-json-schema", SeverityError, ProfileUniversal, "a Universal tools.json validates against Appendix B"},
	{"tools-json-stale", SeverityWarning, ProfileUniversal, "tools.json agrees with the frontmatter tools"},
	{"tool-name-missing", SeverityError, ProfileSkillTools, "every tool has a name"},
	{"tool-description-missing", SeverityError, ProfileSkillTools, "every tool has a description"},
	{"tool-name-format", SeverityError, ProfileSkillTools, "tool names match ^[a-z][a-z0-9_]*$ (Skill Tools) or ^[a-z0-9-]+$ (Universal)"},
	{"tool-name-duplicate", SeverityError, ProfileSkillTools, "tool names are unique within a skill"},
	{"tool-parameter", SeverityError, ProfileSkillTools, "Skill Tools parameters have a JSON type and a description"},
	{"tool-input-schema", SeverityError, ProfileUniversal, "input_schema is valid JSON Schema 2020-12 with type: object"},
	{"tool-output-schema", SeverityError, ProfileUniversal, "output_schema is valid JSON Schema 2020-12"},
	{"tool-strict-schema", SeverityWarning, ProfileUniversal, "object schemas set additionalProperties: false"},
	{"tool-implementation", SeverityError, ProfileUniversal, "Universal tools have implementation.runtime and entrypoint"},
	{"tool-entrypoint-outside", SeverityError, ProfileSkillTools, "the handler script stays inside the skill folder"},
	{"tool-entrypoint-missing", SeverityError, ProfileSkillTools, "the handler script exists"},
	{"tool-runtime-extension", SeverityError, ProfileUniversal, "the entrypoint's extension fits the runtime (.py, .js/.mjs, .sh)"},
}

var ruleByID = func() map[string]Rule {
	m := make(map[string]Rule, len(rules)+len(formatRules))
	for _, r := range slices.Concat(rules, formatRules) {
		m[r.ID] = r
	}
	return m
}()

var (
	xmlTagRE      = lazyre.New(`</?[A-Za-z][A-Za-z0-9_:.-]*(\s[^<>]*)?/?>`)
	nameCharsRE   = lazyre.New(`^[a-z0-9-]+$`)
	agentSkillsFM = map[string]bool{"name": true, "description": true, "license": true, "compatibility": true, "metadata": true, "allowed-tools": true}
	universalFM   = map[string]bool{"spec_version": true, "version": true, "tags": true, "when_to_use": true, "permissions": true, "safety": true, "secrets": true, "tools": true, "host_overrides": true, "evaluation": true, "provenance": true, "depends_on": true, "extensions": true}
)

func (c *checker) checkEncoding() {
	if c.s.HasBOM {
		c.skillMD("bom", 1, "SKILL.md starts with a UTF-8 byte order mark", "re-save SKILL.md as UTF-8 without BOM")
	}
	if strings.TrimSpace(c.s.Body) == "" {
		c.skillMD("body-empty", c.s.BodyLine, "SKILL.md has no instructions after the frontmatter", "add Markdown instructions below the closing '---'")
	}
}

func (c *checker) checkName() {
	d, name := c.s.fm, c.s.Frontmatter.Name
	line := d.keyLine("name")
	folder := filepath.Base(c.s.Dir)
	switch {
	case d.wrongType("name"):
		return // reported as field-type
	case d.value["name"] == nil || name == "":
		c.skillMD("name-missing", line, "name is missing", fmt.Sprintf("add 'name: %s' to the frontmatter", suggestName(folder)))
		return
	case len(name) > 64:
		c.skillMD("name-length", line, fmt.Sprintf("name is %d characters, over 64", len(name)), "shorten the name to at most 64 characters")
	case !ValidName(name):
		c.skillMD("name-format", line, fmt.Sprintf("name %q must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen", name), fmt.Sprintf("rename it to %q", suggestName(name)))
	}
	if name != folder && folder != "." && folder != string(filepath.Separator) {
		c.skillMD("name-mismatch", line, fmt.Sprintf("name %q differs from its folder %q", name, folder), fmt.Sprintf("rename the folder to %q or set 'name: %s'", name, folder))
	}
	for _, w := range []string{"anthropic", "claude"} {
		if strings.Contains(name, w) {
			c.skillMD("name-reserved", line, fmt.Sprintf("name %q contains the host-reserved word %q, which the Claude API rejects", name, w), fmt.Sprintf("rename it to %q", suggestName(strings.ReplaceAll(name, w, ""))))
		}
	}
}

// wrongType reports whether key holds a list or mapping where a string
// belongs; decodeFields reports that as field-type.
func (d *document) wrongType(key string) bool {
	v := d.value[key]
	if v != nil && v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	return v != nil && v.Kind != yaml.ScalarNode
}

// suggestName turns any string into a valid skill name.
func suggestName(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			hyphen = false
		} else if !hyphen && b.Len() > 0 {
			b.WriteByte('-')
			hyphen = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "-")
	}
	if out == "" {
		out = "my-skill"
	}
	return out
}

func (c *checker) checkDescription() {
	d, desc := c.s.fm, c.s.Frontmatter.Description
	line := d.keyLine("description")
	if d.wrongType("description") {
		return // reported as field-type
	}
	if d.value["description"] == nil || strings.TrimSpace(desc) == "" {
		c.skillMD("description-missing", line, "description is missing", "add a description that says what the skill does and when to use it")
		return
	}
	if n := len([]rune(desc)); n > 1024 {
		c.skillMD("description-length", line, fmt.Sprintf("description is %d characters, over 1024", n), "shorten the description; move detail into the body")
	}
	if m := xmlTagRE().FindString(desc); m != "" {
		c.skillMD("description-xml", line, fmt.Sprintf("description contains the XML tag %s", m), "remove angle-bracket tags from the description")
	}
}

func (c *checker) checkOptionalFields() {
	d, f := c.s.fm, c.s.Frontmatter
	if n := len([]rune(f.Compatibility)); n > 500 {
		c.skillMD("compatibility-length", d.keyLine("compatibility"), fmt.Sprintf("compatibility is %d characters, over 500", n), "shorten compatibility to the essential requirements")
	}
}

func (c *checker) checkUnknownFields() {
	if c.at(ProfileUniversal) {
		return // the Universal schema reports unknown keys on the same line
	}
	for _, k := range c.s.fm.keys {
		// Universal fields are skillpm's own vocabulary too (version,
		// depends_on, ...): known unless agent-skills was asked for.
		if agentSkillsFM[k] || (universalFM[k] && !c.forced) {
			continue
		}
		c.skillMD("unknown-field", c.s.fm.keyLine(k), fmt.Sprintf("unknown frontmatter field %q", k), fmt.Sprintf("move %q under metadata:, or remove it", k))
	}
}

func (c *checker) checkVersion() {
	v := c.s.Frontmatter.Version
	if c.s.fm.value["version"] == nil || v == "" {
		return
	}
	if _, err := semver.StrictNewVersion(v); err != nil {
		c.skillMD("version-semver", c.s.fm.keyLine("version"), fmt.Sprintf("version %q is not a semantic version", v), "write version as MAJOR.MINOR.PATCH, quoted, e.g. version: \"1.0.0\"")
	}
}

func (c *checker) checkUniversalSchema() {
	v, err := c.s.fm.plain()
	if err != nil {
		return // decode problems are already reported as field-type
	}
	if err := c.l.frontmatter.Validate(v); err != nil {
		for _, p := range schemaProblems(err) {
			c.skillMD("universal-schema", c.s.fm.line(nodeAt(c.s.fm.root, p.path)), fmt.Sprintf("%s: %s", locationString(p.path), p.msg), "see the Universal spec, Appendix A")
		}
	}
}

func (c *checker) checkPermissions() {
	p := c.s.Frontmatter.Permissions
	if p == nil {
		return
	}
	line := c.s.fm.keyLine("permissions")
	for _, g := range append(append([]string{}, p.Filesystem.Read...), p.Filesystem.Write...) {
		if g == "**" || g == "**/*" || g == "*" || g == "/**" {
			c.skillMD("permissions-broad", line, fmt.Sprintf("filesystem permission %q grants every file", g), "grant narrow globs such as **/*.pdf or output/**")
		}
	}
	for _, h := range p.Network.Outbound {
		if h == "*" || h == "**" {
			c.skillMD("permissions-broad", line, "network.outbound \"*\" allows every host", "list the hosts the skill needs")
		}
	}
}

// nodeAt follows an instance location into the YAML tree and returns the
// deepest node found (a mapping's key node for the last step, since that
// is the line a person looks for).
func nodeAt(n *yaml.Node, path []string) *yaml.Node {
	cur := n
	for _, step := range path {
		if cur.Kind == yaml.AliasNode && cur.Alias != nil {
			cur = cur.Alias
		}
		switch cur.Kind {
		case yaml.MappingNode:
			found := false
			for i := 0; i+1 < len(cur.Content); i += 2 {
				if cur.Content[i].Value == step {
					if step == path[len(path)-1] {
						return cur.Content[i]
					}
					cur, found = cur.Content[i+1], true
					break
				}
			}
			if !found {
				return cur
			}
		case yaml.SequenceNode:
			var i int
			if _, err := fmt.Sscan(step, &i); err != nil || i < 0 || i >= len(cur.Content) {
				return cur
			}
			cur = cur.Content[i]
		default:
			return cur
		}
	}
	return cur
}
