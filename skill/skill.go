// Package skill reads agent skill folders into one normalised model and lints
// them against the five formats skillpm speaks: Agent Skills (SKILL.md
// frontmatter), Skill Tools (tools.json), the Universal Agent Skill spec (full
// frontmatter with JSON Schema tool contracts), the Skill-tool contract and
// the load_skill/use_skill proposal.
//
// Load is lenient: it fails only when a folder cannot be read as a skill at
// all (no SKILL.md, no frontmatter, invalid YAML, hostile input). Rule
// violations are reported by a Linter and never stop a skill from loading.
package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// FileName is the name of the required manifest at a skill's root.
const FileName = "SKILL.md"

// ToolsFileName is the optional tool manifest beside SKILL.md.
const ToolsFileName = "tools.json"

// Skill is one parsed skill folder.
type Skill struct {
	// Dir is the skill folder as given to Load, cleaned.
	Dir string
	// Frontmatter holds the parsed YAML frontmatter.
	Frontmatter Frontmatter
	// Body is the Markdown after the frontmatter, with CRLF folded to LF.
	Body string
	// BodyLine is the line of SKILL.md on which Body starts.
	BodyLine int
	// Tools are the effective tool declarations: frontmatter tools when
	// present (canonical), otherwise those of tools.json.
	Tools []Tool
	// Dependencies are the parsed depends_on entries, in file order.
	Dependencies []Dependency

	// HasBOM reports that SKILL.md started with a UTF-8 byte order mark.
	HasBOM bool
	// CRLF reports that SKILL.md used CRLF line endings.
	CRLF bool

	fm        *document // frontmatter with positions, for lint
	toolsJSON *toolsFile
	problems  []Diagnostic // recoverable problems found while loading
}

// Frontmatter is the union of the Agent Skills and Universal frontmatter
// fields. Fields a skill does not set are zero.
type Frontmatter struct {
	// Agent Skills fields.
	Name          string         `json:"name"`
	Description   string         `json:"description"`
	License       string         `json:"license,omitempty"`
	Compatibility string         `json:"compatibility,omitempty"`
	Metadata      map[string]any `json:"metadata,omitempty"`
	// AllowedTools is the space-delimited allowed-tools field, split.
	AllowedTools []string `json:"allowedTools,omitempty"`

	// Universal fields.
	SpecVersion   string         `json:"spec_version,omitempty"`
	Version       string         `json:"version,omitempty"`
	Tags          []string       `json:"tags,omitempty"`
	WhenToUse     *WhenToUse     `json:"when_to_use,omitempty"`
	Permissions   *Permissions   `json:"permissions,omitempty"`
	Safety        map[string]any `json:"safety,omitempty"`
	Secrets       []Secret       `json:"secrets,omitempty"`
	HostOverrides []HostOverride `json:"host_overrides,omitempty"`
	Evaluation    map[string]any `json:"evaluation,omitempty"`
	Provenance    map[string]any `json:"provenance,omitempty"`
	Extensions    map[string]any `json:"extensions,omitempty"`
	// Unknown holds frontmatter keys no supported spec defines.
	Unknown map[string]any `json:"-"`
}

// WhenToUse holds the Universal trigger metadata.
type WhenToUse struct {
	Mentions  []string `json:"mentions,omitempty" yaml:"mentions"`
	FileTypes []string `json:"file_types,omitempty" yaml:"file_types"`
	Intents   []string `json:"intents,omitempty" yaml:"intents"`
	Priority  int      `json:"priority,omitempty" yaml:"priority"`
}

// Permissions is the Universal least-privilege declaration.
type Permissions struct {
	Filesystem struct {
		Read  []string `json:"read,omitempty" yaml:"read"`
		Write []string `json:"write,omitempty" yaml:"write"`
	} `json:"filesystem" yaml:"filesystem"`
	Network struct {
		Outbound []string `json:"outbound" yaml:"outbound"`
	} `json:"network" yaml:"network"`
	Processes struct {
		AllowSubprocess bool `json:"allow_subprocess" yaml:"allow_subprocess"`
	} `json:"processes" yaml:"processes"`
}

// Secret is one environment variable a skill's tools need.
type Secret struct {
	Name        string `json:"name" yaml:"name"`
	Usage       string `json:"usage,omitempty" yaml:"usage"`
	Description string `json:"description,omitempty" yaml:"description"`
	Optional    bool   `json:"optional,omitempty" yaml:"optional"`
}

// HostOverride is host-specific configuration layered over the skill.
type HostOverride struct {
	Host   string         `json:"host" yaml:"host"`
	Config map[string]any `json:"config" yaml:"config"`
}

// Tool is one tool declaration, normalised from either source.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// InputSchema is a JSON Schema (2020-12) object. Skill Tools
	// parameters are converted: every parameter not marked optional is
	// required.
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	// Runtime is python, node or bash; for Skill Tools it is inferred
	// from the script's extension (empty when unknown).
	Runtime string `json:"runtime,omitempty"`
	// Entrypoint is the handler script, relative to the skill folder.
	// Empty for a Skill Tools stub tool.
	Entrypoint     string       `json:"entrypoint,omitempty"`
	Handler        string       `json:"handler,omitempty"`
	TimeoutSeconds int          `json:"timeout_seconds,omitempty"`
	Dependencies   *ToolDeps    `json:"dependencies,omitempty"`
	Confirmation   *ToolConfirm `json:"confirmation,omitempty"`
	Source         ToolSource   `json:"source"`
	Format         ToolFormat   `json:"format"`
	line           int
	raw            map[string]any
}

// ToolDeps lists what a tool's implementation needs installed.
type ToolDeps struct {
	Pip    []string `json:"pip,omitempty"`
	Npm    []string `json:"npm,omitempty"`
	System []string `json:"system,omitempty"`
	Notes  string   `json:"notes,omitempty"`
}

// ToolConfirm is a Universal per-tool confirmation gate.
type ToolConfirm struct {
	Level  string `json:"level,omitempty"`
	Prompt string `json:"prompt,omitempty"`
}

// ToolSource says where a tool was declared.
type ToolSource string

// Tool sources.
const (
	FromFrontmatter ToolSource = "frontmatter"
	FromToolsJSON   ToolSource = "tools.json"
)

// ToolFormat says which spec a tool declaration follows.
type ToolFormat string

// Tool formats.
const (
	FormatUniversal  ToolFormat = "universal"
	FormatSkillTools ToolFormat = "skill-tools"
)

// SKILLPath returns the path of the skill's SKILL.md.
func (s *Skill) SKILLPath() string { return filepath.Join(s.Dir, FileName) }

// Name returns the skill's frontmatter name.
func (s *Skill) Name() string { return s.Frontmatter.Name }

// Tool returns the tool called name, or nil.
func (s *Skill) Tool(name string) *Tool {
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			return &s.Tools[i]
		}
	}
	return nil
}

// Limits bound what Load reads, so hostile input costs bounded memory.
type Limits struct {
	// MaxFile is the largest SKILL.md accepted. 0 means 8 MiB (the Claude
	// API's upload limit for a whole skill).
	MaxFile int64
	// MaxFrontmatter is the largest frontmatter accepted. 0 means 64 KiB.
	MaxFrontmatter int
	// MaxYAMLNodes bounds the YAML nodes visited with aliases expanded.
	// 0 means 20,000.
	MaxYAMLNodes int
	// MaxToolsFile is the largest tools.json accepted. 0 means 1 MiB.
	MaxToolsFile int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxFile <= 0 {
		l.MaxFile = 8 << 20
	}
	if l.MaxFrontmatter <= 0 {
		l.MaxFrontmatter = 64 << 10
	}
	if l.MaxYAMLNodes <= 0 {
		l.MaxYAMLNodes = 20000
	}
	if l.MaxToolsFile <= 0 {
		l.MaxToolsFile = 1 << 20
	}
	return l
}

// ErrNotSkill is wrapped by errors for folders that are not skills at all.
var ErrNotSkill = errors.New("not a skill")

// Error is a problem that stops a skill from loading. It names the file and
// line, a stable rule ID and the fix.
type Error struct {
	Path string // file the problem is in
	Line int    // 1-based; 0 when the whole file is concerned
	Rule string // stable rule ID, as in lint output
	Msg  string
	Fix  string
	Err  error // underlying cause, if any
}

func (e *Error) Error() string {
	loc := e.Path
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

func (e *Error) Unwrap() error { return e.Err }

// Load reads the skill folder dir with default limits.
func Load(dir string) (*Skill, error) { return LoadWithLimits(dir, Limits{}) }

// LoadWithLimits reads the skill folder dir. It returns an *Error for a
// folder that cannot be read as a skill; rule violations do not fail it.
func LoadWithLimits(dir string, lim Limits) (*Skill, error) {
	lim = lim.withDefaults()
	dir = filepath.Clean(dir)
	path := filepath.Join(dir, FileName)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &Error{Path: dir, Rule: "skill-md-missing", Msg: "no such directory", Fix: "pass the path of a skill folder", Err: ErrNotSkill}
	case err != nil:
		return nil, &Error{Path: dir, Rule: "unreadable", Msg: err.Error(), Fix: "check the folder's permissions", Err: err}
	case !fi.IsDir():
		return nil, &Error{Path: dir, Rule: "skill-md-missing", Msg: "not a directory", Fix: "pass the folder that holds SKILL.md, not a file", Err: ErrNotSkill}
	}
	data, err := readSkillFile(path, lim.MaxFile)
	if err != nil {
		return nil, err
	}
	s := &Skill{Dir: dir}
	if err := s.parse(path, data, lim); err != nil {
		return nil, err
	}
	if err := s.loadTools(lim); err != nil {
		return nil, err
	}
	return s, nil
}

func readSkillFile(path string, max int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &Error{Path: path, Rule: "skill-md-missing", Msg: "SKILL.md not found", Fix: "create SKILL.md with name and description frontmatter (skillpm init)", Err: ErrNotSkill}
	case err != nil:
		return nil, &Error{Path: path, Rule: "unreadable", Msg: err.Error(), Fix: "check the file's permissions", Err: err}
	case fi.IsDir():
		return nil, &Error{Path: path, Rule: "skill-md-missing", Msg: "SKILL.md is a directory", Fix: "replace the SKILL.md directory with a SKILL.md file", Err: ErrNotSkill}
	case fi.Mode()&fs.ModeSymlink != 0:
		// Follow the link, but only to a regular file inside the folder:
		// a hostile skill must not make skillpm read ~/.ssh or /etc.
		if fi, err = os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			return nil, &Error{Path: path, Rule: "skill-md-missing", Msg: "SKILL.md is a symlink to something that is not a regular file", Fix: "make SKILL.md a regular file", Err: ErrNotSkill}
		}
		if insideExisting(filepath.Dir(path), FileName) != nil {
			return nil, &Error{Path: path, Rule: "skill-md-missing", Msg: "SKILL.md is a symlink to a file outside the skill folder", Fix: "replace the symlink with the file itself", Err: ErrNotSkill}
		}
	case !fi.Mode().IsRegular():
		return nil, &Error{Path: path, Rule: "skill-md-missing", Msg: "SKILL.md is not a regular file", Fix: "make SKILL.md a regular file", Err: ErrNotSkill}
	}
	if fi.Size() > max {
		return nil, &Error{Path: path, Rule: "file-too-large", Msg: fmt.Sprintf("SKILL.md is %d bytes, over the %d byte limit", fi.Size(), max), Fix: "move long content into references/ files"}
	}
	data, err := readLimited(path, max)
	if err != nil {
		return nil, &Error{Path: path, Rule: "unreadable", Msg: err.Error(), Fix: "check the file's permissions", Err: err}
	}
	if int64(len(data)) > max {
		return nil, &Error{Path: path, Rule: "file-too-large", Msg: fmt.Sprintf("SKILL.md is over the %d byte limit", max), Fix: "move long content into references/ files"}
	}
	return data, nil
}

// ValidName reports whether name is a valid skill name: 1–64 characters of
// lowercase letters, digits and single inner hyphens
// (^[a-z0-9]+(-[a-z0-9]+)*$). It is checked by hand, not by a regular
// expression: a warm install checks every locked name in every target.
func ValidName(name string) bool {
	if len(name) < 1 || len(name) > 64 || name[0] == '-' || name[len(name)-1] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '-' && name[i-1] != '-':
		default:
			return false
		}
	}
	return true
}

// NormalizeRelPath cleans a path written inside a skill (a script, a link)
// and reports whether it stays inside the skill folder.
func NormalizeRelPath(p string) (string, bool) {
	p = strings.ReplaceAll(p, `\`, "/")
	if p == "" || strings.HasPrefix(p, "/") || filepath.IsAbs(p) || filepath.VolumeName(p) != "" {
		return p, false
	}
	c := filepath.ToSlash(filepath.Clean(p))
	if c == ".." || strings.HasPrefix(c, "../") {
		return c, false
	}
	return c, true
}
