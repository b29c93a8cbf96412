package skill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ErrNoFrontmatterTools is ToolsJSON's error for a skill whose SKILL.md
// frontmatter declares no tools: there is nothing to regenerate tools.json
// from (a tools.json of its own is then the only source, and is kept).
var ErrNoFrontmatterTools = errors.New("SKILL.md frontmatter declares no tools")

// ToolsJSON returns the skill's tools.json regenerated from its SKILL.md
// frontmatter tools, as the Universal spec's §6 wants it: a JSON array of
// the same tool objects, in frontmatter order. The bytes depend only on
// the frontmatter: object keys sorted, two-space indent, no HTML escaping,
// a final newline. Loading the skill again finds the file in agreement
// (no tools-json-stale).
func (s *Skill) ToolsJSON() ([]byte, error) {
	var out []map[string]any
	for _, t := range s.Tools {
		if t.Source != FromFrontmatter || t.raw == nil {
			return nil, fmt.Errorf("%s: %w", s.SKILLPath(), ErrNoFrontmatterTools)
		}
		out = append(out, t.raw)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: %w", s.SKILLPath(), ErrNoFrontmatterTools)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("%s: encode tools: %w", s.SKILLPath(), err)
	}
	return buf.Bytes(), nil
}
