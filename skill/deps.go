package skill

import (
	"fmt"
	"strings"

	"github.com/Masterminds/semver/v3"
	"gopkg.in/yaml.v3"
)

// Dependency is one depends_on entry: a skill name and a semver constraint
// in Masterminds/semver/v3 syntax ("^1.2", ">=1.0 <2", "1.x").
type Dependency struct {
	Name string `json:"name"`
	// Constraint is the constraint as written; "*" for a bare name.
	Constraint string `json:"constraint"`
	// Constraints is the parsed form of Constraint.
	Constraints *semver.Constraints `json:"-"`
	line        int
}

func (d Dependency) String() string {
	if d.Constraint == "" || d.Constraint == "*" {
		return d.Name
	}
	return d.Name + "@" + d.Constraint
}

// ParseDependency parses "name", "name@constraint" or "name@version". The
// error names the entry and says what is wrong with it.
func ParseDependency(s string) (Dependency, error) {
	s = strings.TrimSpace(s)
	name, c, _ := strings.Cut(s, "@")
	return newDependency(strings.TrimSpace(name), strings.TrimSpace(c))
}

func newDependency(name, c string) (Dependency, error) {
	if !ValidName(name) {
		return Dependency{}, fmt.Errorf("dependency %q: %q is not a valid skill name (lowercase letters, digits and hyphens)", joinDep(name, c), name)
	}
	if c == "" || c == "latest" {
		c = "*"
	}
	cs, err := semver.NewConstraint(c)
	if err != nil {
		return Dependency{}, fmt.Errorf("dependency %q: invalid version constraint %q: %v", joinDep(name, c), c, err)
	}
	return Dependency{Name: name, Constraint: c, Constraints: cs}, nil
}

func joinDep(name, c string) string {
	if c == "" {
		return name
	}
	return name + "@" + c
}

// parseDependsOn reads depends_on as a list of "name@constraint" strings
// (or one-key mappings), or as a mapping of name to constraint.
func (s *Skill) parseDependsOn(v *yaml.Node) []Dependency {
	var deps []Dependency
	add := func(line int, name, c string) {
		d, err := newDependency(name, c)
		if err != nil {
			s.problem("depends-on-invalid", line, err.Error(), "write entries as name@constraint, e.g. pdf-tools@^1.2")
			return
		}
		d.line = line
		for _, e := range deps {
			if e.Name == d.Name {
				s.problem("depends-on-invalid", line, fmt.Sprintf("dependency %q is listed twice", d.Name), "merge the two entries into one constraint")
				return
			}
		}
		deps = append(deps, d)
	}
	switch v.Kind {
	case yaml.SequenceNode:
		for _, item := range v.Content {
			switch item.Kind {
			case yaml.ScalarNode:
				name, c, _ := strings.Cut(item.Value, "@")
				add(s.fm.line(item), strings.TrimSpace(name), strings.TrimSpace(c))
			case yaml.MappingNode:
				for i := 0; i+1 < len(item.Content); i += 2 {
					add(s.fm.line(item.Content[i]), item.Content[i].Value, item.Content[i+1].Value)
				}
			default:
				s.problem("depends-on-invalid", s.fm.line(item), "depends_on entries must be strings like name@constraint", "write entries as name@constraint")
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			add(s.fm.line(v.Content[i]), v.Content[i].Value, v.Content[i+1].Value)
		}
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil
		}
		s.problem("depends-on-invalid", s.fm.line(v), "depends_on must be a list", "write depends_on: [name@constraint, ...]")
	default:
		s.problem("depends-on-invalid", s.fm.line(v), "depends_on must be a list", "write depends_on: [name@constraint, ...]")
	}
	return deps
}
