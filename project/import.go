package project

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/skillpm/skillpm/skill"
)

// SourceKeys are the keys of a skills.yaml entry that names a source
// other than the default registry (the shared sources shape), in the
// order they are written.
var SourceKeys = []string{"git", "path", "version", "ref", "wellknown", "local"}

// SetSource writes name's entry as a mapping of the given source keys
// (git, path, version, ref, wellknown, local; empty values are left
// out), replacing any entry of that name, through the YAML node tree so
// the user's comments and order survive. It is how 'skillpm import'
// writes git, well-known and local entries.
func (m *Manifest) SetSource(name string, fields map[string]string) error {
	if !skill.ValidName(name) {
		return fmt.Errorf("skills: %q is not a valid skill name", name)
	}
	v := &yaml.Node{Kind: yaml.MappingNode}
	known := map[string]bool{}
	for _, k := range SourceKeys {
		known[k] = true
		if val := fields[k]; val != "" {
			setMapValue(v, k, val)
		}
	}
	for k := range fields {
		if !known[k] {
			return fmt.Errorf("skill %s: %q is not a source key (want one of %v)", name, k, SourceKeys)
		}
	}
	if _, ok := m.Skills[name]; !ok {
		m.Skills[name] = Want{Constraint: fields["version"]}
	}
	skills := m.skillsNode()
	for i := 0; i+1 < len(skills.Content); i += 2 {
		if skills.Content[i].Value == name {
			skills.Content[i+1] = v
			return nil
		}
	}
	skills.Content = append(skills.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, v)
	return nil
}
