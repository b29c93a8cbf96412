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
	"io"
	"io/fs"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source/giturl"
	"github.com/skillpm/skillpm/source/wellknown/discovery"
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
	doc  *yaml.Node // the YAML tree edits go through; parsed from src when first needed
	// src holds the bytes m was parsed from while m is unchanged
	// (skillsNode, which every edit goes through, drops it): Reload
	// returns m itself for the same bytes.
	src []byte
	// memoDir is the memo folder it was loaded through (LoadMemo), for
	// Reload.
	memoDir string
}

// Tools is the tools: section of skills.yaml.
type Tools struct {
	// Env maps a skill name to the declared variables it may receive.
	Env toolrun.Grants `yaml:"env,omitempty" json:"env,omitempty"`
	// Sandbox may tighten the user's sandbox mode (off, default, strict),
	// never relax it.
	Sandbox string `yaml:"sandbox,omitempty" json:"sandbox,omitempty"`
}

// Want is one wanted skill: where it comes from and which versions. In
// YAML it is a constraint string (an OCI skill from the default
// registry), or a mapping naming one source:
//
//	{version, registry}         OCI
//	{git, path, version | ref}  a git repository (source/giturl.Parse)
//	{local}                     a folder inside the project
//	{wellknown, version}        an origin's /.well-known/agent-skills index
type Want struct {
	Constraint string `json:"version"`
	Registry   string `json:"registry,omitempty"`
	// Git is the repository as written (any form giturl.Parse accepts).
	Git string `json:"git,omitempty"`
	// Path is the skill's folder inside the repository.
	Path string `json:"path,omitempty"`
	// Ref is a branch (tracked), tag or commit (pinned), instead of a
	// version constraint over semver tags.
	Ref string `json:"ref,omitempty"`
	// Local is a folder relative to the project.
	Local string `json:"local,omitempty"`
	// WellKnown is an origin serving /.well-known/agent-skills/index.json.
	WellKnown string `json:"wellknown,omitempty"`
}

// Kinds of source a Want names.
const (
	KindOCI       = "oci"
	KindGit       = "git"
	KindLocal     = "local"
	KindWellKnown = "wellknown"
)

// Kind returns the kind of source w names.
func (w Want) Kind() string {
	switch {
	case w.Git != "":
		return KindGit
	case w.Local != "":
		return KindLocal
	case w.WellKnown != "":
		return KindWellKnown
	}
	return KindOCI
}

// UnmarshalYAML accepts "^1.2" or a mapping with the keys of one kind of
// source; unknown keys are refused.
func (w *Want) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		w.Constraint = n.Value
		return nil
	case yaml.MappingNode:
		var m struct {
			Version   string `yaml:"version"`
			Registry  string `yaml:"registry"`
			Git       string `yaml:"git"`
			Path      string `yaml:"path"`
			Ref       string `yaml:"ref"`
			Local     string `yaml:"local"`
			WellKnown string `yaml:"wellknown"`
		}
		for i := 0; i < len(n.Content); i += 2 {
			switch k := n.Content[i].Value; k {
			case "version", "registry", "git", "path", "ref", "local", "wellknown":
			default:
				return fmt.Errorf("line %d: unknown key %q in a skill entry (want version, registry, git, path, ref, local or wellknown)", n.Content[i].Line, k)
			}
		}
		if err := n.Decode(&m); err != nil {
			return err
		}
		*w = Want{Constraint: m.Version, Registry: m.Registry, Git: m.Git, Path: m.Path, Ref: m.Ref, Local: m.Local, WellKnown: m.WellKnown}
		return nil
	}
	return fmt.Errorf("line %d: a skill entry is a version constraint or a mapping (version/registry, git/path/version/ref, local, wellknown)", n.Line)
}

// validate checks that w names one source and only the keys that
// source takes. Errors say what to write instead.
// ok remembers the constraints already parsed without error.
func (w Want) validate(ok map[string]bool) error {
	kinds := 0
	for _, s := range []string{w.Registry, w.Git, w.Local, w.WellKnown} {
		if s != "" {
			kinds++
		}
	}
	if kinds > 1 {
		return errors.New("names more than one source: keep one of registry, git, local and wellknown")
	}
	if w.Kind() != KindGit && (w.Path != "" || w.Ref != "") {
		return errors.New("path and ref go only with git: add 'git: URL', or remove them")
	}
	switch w.Kind() {
	case KindGit:
		src, err := giturl.Parse(w.Git)
		if err != nil {
			return fmt.Errorf("git: %w; write an https://, ssh://, git@host:path or file:// URL, or github.com/OWNER/REPO", err)
		}
		if src.Ref != "" {
			return fmt.Errorf("git: %q names a ref (@%s): write it as 'ref: %s' or a 'version:' constraint instead", w.Git, src.Ref, src.Ref)
		}
		if dotSegment(repoPath(src.URL)) || dotSegment(repoPath(w.Git)) {
			// A server (curl, for git over https) resolves them, but a
			// trust policy's prefix sees the path as written:
			// github.com/acme/../evil/x is not github.com/acme's.
			return fmt.Errorf("git: %q has a . or .. in its path: write the repository's own path", w.Git)
		}
		if src.Subdir != "" && w.Path != "" {
			return fmt.Errorf("git: %q names a folder and path names another: keep one", w.Git)
		}
		if w.Constraint != "" && w.Ref != "" {
			return errors.New("has both version and ref: a version constraint picks among semver tags, a ref names one branch, tag or commit; keep one")
		}
		if w.Ref != "" {
			if _, err := giturl.Parse("file:///x#" + w.Ref); err != nil || strings.HasPrefix(w.Ref, "-") {
				return fmt.Errorf("ref %q is not a valid git ref", w.Ref)
			}
		}
		if p := strings.Trim(w.Path, "/"); p != "" {
			if strings.HasPrefix(w.Path, "/") || slices.Contains(strings.Split(p, "/"), "..") {
				return fmt.Errorf("path %q must be a folder inside the repository", w.Path)
			}
		}
	case KindWellKnown:
		u, err := discovery.ParseOrigin(w.WellKnown)
		if err != nil {
			return fmt.Errorf("wellknown: %w", err)
		}
		if dotSegment(u.Path) {
			return fmt.Errorf("wellknown: %q has a . or .. in its path: write the origin's own path", w.WellKnown)
		}
	case KindLocal:
		if w.Constraint != "" {
			return errors.New("a local folder has no versions: remove version")
		}
		if filepath.IsAbs(w.Local) || strings.HasPrefix(w.Local, "/") || strings.HasPrefix(filepath.ToSlash(filepath.Clean(w.Local)), "../") || filepath.Clean(w.Local) == ".." {
			return fmt.Errorf("local: %q must be a folder inside the project (relative, no ..)", w.Local)
		}
	}
	if c := w.constraint(); !ok[c] {
		if _, err := semver.NewConstraint(c); err != nil {
			return fmt.Errorf("invalid version constraint %q: %v", w.Constraint, err)
		}
		ok[c] = true
	}
	return nil
}

// repoPath is the path of a git URL: the URL's (decoded) path, what
// follows the colon of user@host:path, or a short form as written.
func repoPath(repo string) string {
	if strings.Contains(repo, "://") {
		if u, err := url.Parse(repo); err == nil {
			return u.Path
		}
		return repo
	}
	if i := strings.Index(repo, ":"); i >= 0 && !strings.Contains(repo[:i], "/") {
		return repo[i+1:]
	}
	return repo // github.com/OWNER/REPO
}

// dotSegment reports whether the slash path p has a "." or ".." segment.
func dotSegment(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// GitSource returns the repository, folder and ref w names (Kind
// KindGit), as giturl.Parse reads them.
func (w Want) GitSource() giturl.Source {
	src, _ := giturl.Parse(w.Git)
	if w.Path != "" {
		src.Subdir = strings.Trim(path.Clean("/"+w.Path), "/")
	}
	src.Ref = w.Ref
	return src
}

// ErrNotFound is returned when there is no skills.yaml.
var ErrNotFound = errors.New("skills.yaml not found")

// ErrInvalid is wrapped by every error about a skills.yaml that cannot
// be used: not YAML, an unknown key, a bad entry, not a regular file, or
// larger than MaxFileSize. The message names the file and what to fix.
var ErrInvalid = errors.New("invalid skills.yaml")

// MaxFileSize bounds skills.yaml: a repository's file is hostile input,
// and a manifest of thousands of skills is far smaller.
const MaxFileSize = 4 << 20

// invalidError marks a Parse error as ErrInvalid without changing its
// message.
type invalidError struct{ err error }

func (e *invalidError) Error() string        { return e.err.Error() }
func (e *invalidError) Unwrap() error        { return e.err }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

// Load reads dir/skills.yaml: a regular file (a link to one is
// followed) of at most MaxFileSize bytes.
func Load(dir string) (*Manifest, error) {
	path := filepath.Join(dir, FileName)
	data, err := readFile(path)
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

// readFile reads skills.yaml's bytes: a regular file (a link to one is
// followed) of at most MaxFileSize bytes.
func readFile(path string) ([]byte, error) {
	data, err := boundedfile.Read(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (create one with 'skillpm add NAME')", path, ErrNotFound)
	}
	if errors.Is(err, boundedfile.ErrNotRegular) || errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, &invalidError{fmt.Errorf("%s: %w; skills.yaml must be a regular file of at most %d bytes", path, err, MaxFileSize)}
	}
	return data, err
}

// Reload reads skills.yaml again, as Load does from m's folder. When the
// file holds the bytes m was parsed from and m was not edited since
// (through its methods; its fields must not be written directly), it
// returns m itself without parsing them again.
func (m *Manifest) Reload() (*Manifest, error) {
	if m.src != nil {
		data, err := boundedfile.Read(m.path, MaxFileSize)
		if err == nil && bytes.Equal(data, m.src) {
			return m, nil
		}
	}
	return LoadMemo(m.Dir(), m.memoDir)
}

// New returns an empty manifest that will be saved in dir.
func New(dir, registry string) *Manifest {
	return &Manifest{Registry: registry, Skills: map[string]Want{}, path: filepath.Join(dir, FileName)}
}

// Parse decodes and validates skills.yaml. Its errors wrap ErrInvalid.
func Parse(data []byte) (*Manifest, error) {
	m, err := parse(data)
	if err != nil {
		return nil, &invalidError{err}
	}
	return m, nil
}

func parse(data []byte) (*Manifest, error) {
	m := &Manifest{src: bytes.Clone(data)}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(m); err != nil && !errors.Is(err, io.EOF) {
		// A syntax error is reported as such; the YAML tree is
		// otherwise parsed only when an edit needs it (skillsNode).
		var doc yaml.Node
		if uerr := yaml.Unmarshal(data, &doc); uerr != nil {
			return nil, fmt.Errorf("invalid YAML: %w", uerr)
		}
		return nil, fmt.Errorf("invalid skills.yaml: %w", err)
	}
	if m.Skills == nil {
		m.Skills = map[string]Want{}
	}
	okConstraints := map[string]bool{} // a constraint is parsed once however many skills share it
	for _, name := range m.Names() {
		if !skill.ValidName(name) {
			return nil, fmt.Errorf("skills: %q is not a valid skill name (lowercase letters, digits and single hyphens)", name)
		}
		if err := m.Skills[name].validate(okConstraints); err != nil {
			return nil, fmt.Errorf("skill %q: %w", name, err)
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
		if c := filepath.ToSlash(filepath.Clean(t)); c == "." || slices.Contains(strings.Split(c, "/"), ".git") {
			// The project root, or git's own folder, where a skill
			// named hooks would become .git/hooks and run on commit.
			return nil, fmt.Errorf("target %q must be a folder of its own inside the project, not its root or inside .git", t)
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
	// The source fields are omitted when empty, so a project of OCI
	// skills keeps the digest it had before sources existed.
	type want struct {
		Name, Constraint, Registry string
		Git                        string `json:",omitempty"`
		Path                       string `json:",omitempty"`
		Ref                        string `json:",omitempty"`
		Local                      string `json:",omitempty"`
		WellKnown                  string `json:",omitempty"`
	}
	in := struct {
		Registry    string
		Prereleases bool
		Skills      []want
	}{Registry: m.Registry, Prereleases: m.Prereleases}
	for _, n := range m.Names() {
		w := m.Skills[n]
		in.Skills = append(in.Skills, want{n, w.constraint(), w.Registry, w.Git, w.Path, w.Ref, w.Local, w.WellKnown})
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
	if m.doc == nil && m.src != nil {
		var doc yaml.Node
		if yaml.Unmarshal(m.src, &doc) == nil && doc.Kind != 0 {
			m.doc = &doc
		}
	}
	m.src = nil // about to be edited
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

// SetSource adds or replaces name as w, written as a mapping in the
// order git, path, version, ref (or local; or wellknown, version); an OCI
// want is written as Set and SetRegistry write it.
func (m *Manifest) SetSource(name string, w Want) {
	if w.Kind() == KindOCI {
		m.Set(name, w.Constraint)
		if w.Registry != "" {
			m.SetRegistry(name, w.Registry)
		}
		return
	}
	m.Skills[name] = w
	v := &yaml.Node{Kind: yaml.MappingNode}
	for _, kv := range [][2]string{{"git", w.Git}, {"path", w.Path}, {"local", w.Local}, {"wellknown", w.WellKnown}, {"version", w.Constraint}, {"ref", w.Ref}} {
		if kv[1] != "" {
			setMapValue(v, kv[0], kv[1])
		}
	}
	skills := m.skillsNode()
	for i := 0; i+1 < len(skills.Content); i += 2 {
		if skills.Content[i].Value == name {
			skills.Content[i+1] = v
			return
		}
	}
	skills.Content = append(skills.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: name}, v)
}
