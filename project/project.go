// Package project reads and edits skills.yaml, a project's manifest: the
// default registry, the folders skills install into, the skills wanted
// with their semver constraints, and an optional trust policy.
//
// Edits (add, remove) go through the YAML node tree, so a user's comments
// and key order survive them.
package project

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/toolrun"
	"gopkg.in/yaml.v3"
)

// FileName is the manifest's name at a project's root.
const FileName = "skills.yaml"

// DefaultTargets returns the folders skills install into when skills.yaml
// names none.
func DefaultTargets() []string { return []string{".claude/skills", ".agents/skills"} }

// Manifest is a parsed skills.yaml.
type Manifest struct {
	// Registry is the default registry prefix: a repository prefix such
	// as ghcr.io/acme/skills, or oci:PATH for a folder of OCI layouts.
	Registry string `yaml:"registry,omitempty" json:"registry,omitempty"`
	// Targets are the discovery folders skills install into, relative to
	// the project root.
	Targets []string `yaml:"targets,omitempty" json:"targets,omitempty"`
	// Agents names agents (agent.Programs IDs) to install for: their
	// folders join Targets (see agents.go).
	Agents []string `yaml:"agents,omitempty" json:"agents,omitempty"`
	// Skills maps a skill name to what is wanted of it.
	Skills map[string]Want `yaml:"skills,omitempty" json:"skills,omitempty"`
	// Prereleases allows pre-release versions everywhere.
	Prereleases bool `yaml:"prereleases,omitempty" json:"prereleases,omitempty"`
	// Policy is the path of a trust policy file, relative to the project.
	Policy string `yaml:"policy,omitempty" json:"policy,omitempty"`
	// Tools configures running the skills' tools: Tools.Env grants
	// declared variables to skills, but as a file of the repository (not
	// the user's) it may grant only names that are not sensitive
	// (toolrun.Grants.Untrusted); the user config and --env grant the rest.
	Tools Tools `yaml:"tools,omitempty" json:"tools,omitempty"`

	path string
	doc  *yaml.Node
}

// Tools is the tools: section of skills.yaml.
type Tools struct {
	// Env maps a skill name to the declared variables it may receive.
	Env toolrun.Grants `yaml:"env,omitempty" json:"env,omitempty"`
	// Sandbox may tighten the user's sandbox mode (off, default, strict),
	// never relax it.
	Sandbox string `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`
}

// Want is one wanted skill: a constraint, and optionally a registry prefix
// other than the default. In YAML it is a constraint string, or a mapping
// with version and registry.
type Want struct {
	Constraint string `json:"version"`
	Registry   string `json:"registry,omitempty"`
}

// UnmarshalYAML accepts "^1.2" or {version: ^1.2, registry: ...}.
func (w *Want) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		w.Constraint = n.Value
		return nil
	case yaml.MappingNode:
		var m struct {
			Version  string `yaml:"version"`
			Registry string `yaml:"registry"`
		}
		if err := n.Decode(&m); err != nil {
			return err
		}
		w.Constraint, w.Registry = m.Version, m.Registry
		return nil
	}
	return fmt.Errorf("line %d: a skill entry is a version constraint or {version, registry}", n.Line)
}

// ErrNotFound is returned when there is no skills.yaml.
var ErrNotFound = errors.New("skills.yaml not found")

// Load reads dir/skills.yaml.
func Load(dir string) (*Manifest, error) {
	path := filepath.Join(dir, FileName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (create one with 'skillpm add NAME')", path, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m.path = path
	return m, nil
}

// New returns an empty manifest that will be saved in dir.
func New(dir, registry string) *Manifest {
	return &Manifest{Registry: registry, Skills: map[string]Want{}, path: filepath.Join(dir, FileName)}
}

// Parse decodes and validates skills.yaml.
func Parse(data []byte) (*Manifest, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("invalid YAML: %w", err)
	}
	m := &Manifest{}
	if doc.Kind != 0 {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(m); err != nil {
			return nil, fmt.Errorf("invalid skills.yaml: %w", err)
		}
		m.doc = &doc
	}
	if m.Skills == nil {
		m.Skills = map[string]Want{}
	}
	for _, name := range m.Names() {
		if !skill.ValidName(name) {
			return nil, fmt.Errorf("skills: %q is not a valid skill name (lowercase letters, digits and single hyphens)", name)
		}
		if _, err := semver.NewConstraint(m.Skills[name].constraint()); err != nil {
			return nil, fmt.Errorf("skill %q: invalid version constraint %q: %v", name, m.Skills[name].Constraint, err)
		}
	}
	for name := range m.Tools.Env {
		if !skill.ValidName(name) {
			return nil, fmt.Errorf("tools.env: %q is not a valid skill name (lowercase letters, digits and single hyphens)", name)
		}
	}
	if _, err := sandbox.ParseMode(m.Tools.Sandbox); err != nil {
		return nil, fmt.Errorf("tools.sandbox: %w", err)
	}
	if err := m.Tools.Env.Validate(); err != nil {
		return nil, fmt.Errorf("tools.env: %w", err)
	}
	if err := m.validateAgents(); err != nil {
		return nil, err
	}
	for _, t := range m.Targets {
		if filepath.IsAbs(t) || strings.HasPrefix(filepath.Clean(t), "..") {
			return nil, fmt.Errorf("target %q must be a folder inside the project", t)
		}
	}
	return m, nil
}

func (w Want) constraint() string {
	if w.Constraint == "" {
		return "*"
	}
	return w.Constraint
}

// Constraints returns the parsed constraint of the want.
func (w Want) Constraints() *semver.Constraints {
	c, err := semver.NewConstraint(w.constraint())
	if err != nil {
		c, _ = semver.NewConstraint("*")
	}
	return c
}

// Path returns where the manifest is saved.
func (m *Manifest) Path() string { return m.path }

// Dir returns the project root.
func (m *Manifest) Dir() string { return filepath.Dir(m.path) }

// Names returns the wanted skill names, sorted.
func (m *Manifest) Names() []string {
	names := make([]string, 0, len(m.Skills))
	for n := range m.Skills {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// InstallTargets returns the target folders: with agents:, the agents'
// folders and then targets: (agentTargets); else targets:, defaulted.
func (m *Manifest) InstallTargets() []string {
	if len(m.Agents) > 0 {
		return m.agentTargets(false)
	}
	if len(m.Targets) == 0 {
		return DefaultTargets()
	}
	return m.Targets
}

// RegistryFor returns the registry prefix for a skill as written: its
// own, or the project default.
func (m *Manifest) RegistryFor(name string) string {
	if w, ok := m.Skills[name]; ok && w.Registry != "" {
		return w.Registry
	}
	return m.Registry
}

// Abs makes a repository usable from any folder: a relative oci: path is
// joined to the project folder. Other repositories are returned as is.
func (m *Manifest) Abs(repo string) string {
	if p, ok := strings.CutPrefix(repo, "oci:"); ok && !filepath.IsAbs(p) {
		return "oci:" + filepath.Join(m.Dir(), p)
	}
	return repo
}

// InputsDigest hashes everything resolution depends on, so a lock made
// from other inputs is detected as stale. Targets are not inputs: they
// change where skills go, not which.
func (m *Manifest) InputsDigest() string {
	type want struct {
		Name, Constraint, Registry string
	}
	in := struct {
		Registry    string
		Prereleases bool
		Skills      []want
	}{Registry: m.Registry, Prereleases: m.Prereleases}
	for _, n := range m.Names() {
		in.Skills = append(in.Skills, want{n, m.Skills[n].constraint(), m.Skills[n].Registry})
	}
	b, _ := json.Marshal(in)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Set adds or changes the constraint of a wanted skill.
func (m *Manifest) Set(name, constraint string) {
	w := m.Skills[name]
	w.Constraint = constraint
	m.Skills[name] = w
	skills := m.skillsNode()
	for i := 0; i+1 < len(skills.Content); i += 2 {
		if skills.Content[i].Value == name {
			v := skills.Content[i+1]
			if v.Kind == yaml.MappingNode {
				setMapValue(v, "version", constraint)
			} else {
				v.Kind, v.Tag, v.Value, v.Style, v.Content = yaml.ScalarNode, "!!str", constraint, quoteStyle(constraint), nil
			}
			return
		}
	}
	skills.Content = append(skills.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Value: name},
		&yaml.Node{Kind: yaml.ScalarNode, Value: constraint, Style: quoteStyle(constraint)})
}

// Remove drops a wanted skill and reports whether it was there.
func (m *Manifest) Remove(name string) bool {
	if _, ok := m.Skills[name]; !ok {
		return false
	}
	delete(m.Skills, name)
	skills := m.skillsNode()
	for i := 0; i+1 < len(skills.Content); i += 2 {
		if skills.Content[i].Value == name {
			skills.Content = append(skills.Content[:i], skills.Content[i+2:]...)
			break
		}
	}
	return true
}

func quoteStyle(s string) yaml.Style {
	if s == "*" || strings.ContainsAny(s, "^~>=<|,* ") {
		return yaml.DoubleQuotedStyle
	}
	return 0
}

// skillsNode returns the mapping node under "skills:", creating the
// document and the key as needed.
func (m *Manifest) skillsNode() *yaml.Node {
	if m.doc == nil {
		m.doc = &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
		root := m.doc.Content[0]
		if m.Registry != "" {
			setMapValue(root, "registry", m.Registry)
		}
	}
	root := m.doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "skills" {
			v := root.Content[i+1]
			if v.Kind != yaml.MappingNode {
				*v = yaml.Node{Kind: yaml.MappingNode}
			}
			return v
		}
	}
	v := &yaml.Node{Kind: yaml.MappingNode}
	root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "skills"}, v)
	return v
}

func setMapValue(n *yaml.Node, key, value string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			v.Kind, v.Tag, v.Value, v.Style, v.Content = yaml.ScalarNode, "!!str", value, quoteStyle(value), nil
			return
		}
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, &yaml.Node{Kind: yaml.ScalarNode, Value: value, Style: quoteStyle(value)})
}

// Marshal encodes the manifest, keeping the user's comments and order.
func (m *Manifest) Marshal() ([]byte, error) {
	if m.doc == nil {
		m.skillsNode()
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m.doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// SetRegistry makes a wanted skill resolve from prefix instead of the
// project default.
func (m *Manifest) SetRegistry(name, prefix string) {
	w := m.Skills[name]
	w.Registry = prefix
	m.Skills[name] = w
	skills := m.skillsNode()
	for i := 0; i+1 < len(skills.Content); i += 2 {
		if skills.Content[i].Value == name {
			v := skills.Content[i+1]
			if v.Kind != yaml.MappingNode {
				c := v.Value
				*v = yaml.Node{Kind: yaml.MappingNode}
				setMapValue(v, "version", c)
			}
			setMapValue(v, "registry", prefix)
			return
		}
	}
}
