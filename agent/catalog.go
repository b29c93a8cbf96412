// Package agent presents the installed skills to agents: a [Catalog] of the
// effective skills and their tools (precedence applied, tool name conflicts
// settled and reported), the system prompt sections that list them
// ([Catalog.PromptXML], [Catalog.PromptMarkdown]), tool definitions for MCP,
// OpenAI and Anthropic hosts, the load_skill and use_skill tools of the
// skills-as-tools proposal, confirmation gates, and calls to declared tools.
// The MCP server that serves all of it is package agent/mcpserver; this
// package links no MCP SDK, so the commands that only list, render or run
// skills start fast.
//
// Metadata comes from the index (package index) when it is fresh, so
// building a catalog of a thousand skills reads no SKILL.md; bodies are read
// only by [Catalog.LoadSkill].
package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/skill"
)

// Options says where to look for skills. The zero value finds nothing.
type Options struct {
	// Project and Home are the roots of the project and user discovery
	// folders (install.SearchDirs); an empty one leaves its scope out.
	Project, Home string
	// IndexPath is the metadata index file; empty parses every skill.
	IndexPath string
	// Index tunes the index lookup (lock timeout, parse workers).
	Index index.Options
	// Discovered, when non-nil, is what install.Discover returned for
	// Dirs(Project, Home): Build then does not read those folders again
	// ('skillpm list' has discovered them already).
	Discovered []install.Entry
	// SkillsOnly leaves the catalog's Tools and Conflicts empty, for
	// callers that only look at its skills and problems ('skillpm
	// list''s health check): a thousand skills' tool table is a fifth
	// of what a build allocates.
	SkillsOnly bool
}

// Skill is one effective skill.
type Skill struct {
	Name        string        `json:"name"` // folder name, as discovery uses it
	Description string        `json:"description"`
	Version     string        `json:"version,omitempty"`
	Location    string        `json:"location"` // absolute path of SKILL.md
	Dir         string        `json:"dir"`      // absolute skill folder
	Scope       install.Scope `json:"scope"`    // user or project
	Root        string        `json:"root"`     // discovery folder, as configured (".claude/skills", "~/.agents/skills")
	Managed     bool          `json:"managed"`  // installed by skillpm
	// Manifest and Tree are the install record's digests of a managed
	// skill: the locked manifest, and the files as installed.
	Manifest string `json:"manifest,omitempty"`
	Tree     string `json:"tree,omitempty"`
	// installed is the install record's version of a managed skill.
	installed string
	Shadows   []string     `json:"shadows,omitempty"`
	Tools     []skill.Tool `json:"tools,omitempty"`
	Secrets   []string     `json:"secrets,omitempty"`
	// Permissions are what the skill declares (Universal §8); nil when
	// nothing, and the sandbox then applies its default profile.
	Permissions *skill.Permissions `json:"permissions,omitempty"`
	// RequireConfirmation is the skill's safety.require_confirmation_for:
	// the kinds of action (destructive_writes, external_network, always)
	// a user must confirm before a tool or script of the skill runs.
	RequireConfirmation []string `json:"require_confirmation_for,omitempty"`
	// WhenToUse are the skill's selection triggers (Universal §10).
	WhenToUse *skill.WhenToUse `json:"when_to_use,omitempty"`
	// HostOverrides are the skill's host-specific overlays.
	HostOverrides []skill.HostOverride `json:"host_overrides,omitempty"`
	// Issues are the lint rules the skill breaks although it is served.
	Issues []Issue `json:"issues,omitempty"`
}

// Type returns "personal" for user-scope skills and "project" otherwise, as
// the Skill tool contract names them.
func (s *Skill) Type() string {
	if s.Scope == install.ScopeUser {
		return "personal"
	}
	return "project"
}

// Tool is an effective tool and the skill that declares it.
type Tool struct {
	skill.Tool
	Skill *Skill
}

// SourceFile is the file that declares the tool: the skill's SKILL.md or
// tools.json.
func (t Tool) SourceFile() string {
	if t.Source == skill.FromToolsJSON {
		return filepath.Join(t.Skill.Dir, skill.ToolsFileName)
	}
	return t.Skill.Location
}

// Conflict is a tool name that several effective skills declare. The Skill
// Tools spec lets the last-loaded skill win: the one later in precedence
// order (and, within one discovery folder, later by name).
type Conflict struct {
	Tool   string   `json:"tool"`
	Winner string   `json:"winner"` // skill name
	Losers []string `json:"losers"` // skill names, in load order
}

func (c Conflict) String() string {
	return fmt.Sprintf("tool %q is declared by skills %v and %q; %q wins (loaded last)", c.Tool, c.Losers, c.Winner, c.Winner)
}

// Problem is an effective skill folder that could not be read.
type Problem struct {
	Dir string `json:"dir"`
	Err error  `json:"-"`
}

func (p Problem) Error() string { return p.Err.Error() }

// Catalog is the effective installed skills and their tools.
type Catalog struct {
	// Skills are sorted by name.
	Skills []*Skill
	// Tools are the effective tools, sorted by name.
	Tools []Tool
	// Conflicts are sorted by tool name.
	Conflicts []Conflict
	// Problems are skills left out because they could not be read.
	Problems []Problem
	// Skipped are skills left out because serving them would mislead
	// (see Screen).
	Skipped []Skipped
	// Index says how the metadata index served the build.
	Index index.Stats

	order []*Skill // Skills in load order, for derived catalogs
}

// Build discovers the skills of opts' discovery folders, keeps the
// effective ones, and reads their metadata through the index.
func Build(ctx context.Context, opts Options) (*Catalog, error) {
	entries := opts.Discovered
	if entries == nil {
		entries = install.Discover(Dirs(opts.Project, opts.Home))
	}
	// The effective entries, in precedence (load) order, by pointer: an
	// install.Entry is large, and copying a thousand of them into a
	// growing slice was a fifth of a warm build's allocations.
	eff := make([]*install.Entry, 0, len(entries))
	for i := range entries {
		if entries[i].Effective {
			eff = append(eff, &entries[i])
		}
	}
	paths := make([]string, len(eff))
	mds := make([]fs.FileInfo, len(eff))
	for i, e := range eff {
		paths[i], mds[i] = e.Path, e.SkillMD
	}
	iopts := opts.Index
	if iopts.SkillMD == nil {
		iopts.SkillMD = mds // discovery has just stat'ed every SKILL.md
	}
	res, st := index.Installed(ctx, opts.IndexPath, paths, iopts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := &Catalog{Index: st}
	loaded := make([]*Skill, 0, len(eff))
	for i, e := range eff {
		r := res[i]
		if r.Err != nil {
			c.Problems = append(c.Problems, Problem{Dir: e.Path, Err: r.Err})
			continue
		}
		sk := &Skill{
			Name:                e.Name,
			Description:         r.Skill.Description,
			Version:             r.Skill.Version,
			Location:            e.Path + string(filepath.Separator) + skill.FileName, // e.Path is clean
			Dir:                 e.Path,
			Scope:               e.Root.Scope,
			Root:                e.Root.Rel,
			Managed:             e.Managed,
			Manifest:            e.Manifest,
			Tree:                e.Tree,
			installed:           e.Version,
			Shadows:             e.Shadows,
			Tools:               r.Skill.Tools,
			Secrets:             r.Skill.Secrets,
			Permissions:         r.Skill.Permissions,
			RequireConfirmation: r.Skill.RequireConfirmation,
			WhenToUse:           r.Skill.WhenToUse,
			HostOverrides:       r.Skill.HostOverrides,
		}
		if sk, skip := Screen(sk, r.Skill); skip != nil {
			c.Skipped = append(c.Skipped, *skip)
		} else {
			loaded = append(loaded, sk)
		}
	}
	if opts.SkillsOnly {
		c.order = loaded
		c.Skills = sortedByName(loaded)
		return c, nil
	}
	c.setSkills(loaded)
	return c, nil
}

// Dirs are the discovery folders Build searches: install.SearchDirs
// without repeats (uniqueDirs).
func Dirs(project, home string) []install.Dir {
	return uniqueDirs(install.SearchDirs(project, home))
}

// uniqueDirs drops all but the last of discovery folders that are the same
// folder (a project opened at $HOME has ~/.claude/skills in both scopes), so
// that a skill does not shadow itself; the later, project-scope entry stays.
func uniqueDirs(dirs []install.Dir) []install.Dir {
	last := map[string]int{}
	for i, d := range dirs {
		last[filepath.Clean(d.Path)] = i
	}
	var out []install.Dir
	for i, d := range dirs {
		if last[filepath.Clean(d.Path)] == i {
			out = append(out, d)
		}
	}
	return out
}

// New builds a catalog from skills given in load order (later skills win
// tool name conflicts). It is Build without discovery, for hosts that find
// skills themselves and for tests.
func New(skills []*Skill) *Catalog {
	c := &Catalog{}
	c.setSkills(skills)
	return c
}

// setSkills fills Skills, Tools and Conflicts from skills in load order.
func (c *Catalog) setSkills(loaded []*Skill) {
	owners := make(map[string][]*Skill, len(loaded))
	var names []string
	for _, s := range loaded {
		for i := range s.Tools {
			t := &s.Tools[i]
			if t.Name == "" || s.declaredBefore(i) {
				continue // a duplicate within one skill is lint's business
			}
			ow, ok := owners[t.Name]
			if !ok {
				names = append(names, t.Name)
			}
			owners[t.Name] = append(ow, s)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		c.Tools = make([]Tool, 0, len(names))
	}
	for _, n := range names {
		ow := owners[n]
		win := ow[len(ow)-1]
		c.Tools = append(c.Tools, Tool{Tool: *win.tool(n), Skill: win})
		if len(ow) > 1 {
			cf := Conflict{Tool: n, Winner: win.Name}
			for _, s := range ow[:len(ow)-1] {
				cf.Losers = append(cf.Losers, s.Name)
			}
			c.Conflicts = append(c.Conflicts, cf)
		}
	}
	c.order = loaded
	c.Skills = sortedByName(loaded)
}

// sortedByName returns a copy of skills sorted by name, stably.
func sortedByName(skills []*Skill) []*Skill {
	out := append([]*Skill(nil), skills...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// declaredBefore reports whether the tool at index i has the name of an
// earlier tool of s. A skill declares a handful of tools: a scan is cheaper
// than a set per skill.
func (s *Skill) declaredBefore(i int) bool {
	for j := range i {
		if s.Tools[j].Name == s.Tools[i].Name {
			return true
		}
	}
	return false
}

func (s *Skill) tool(name string) *skill.Tool {
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			return &s.Tools[i]
		}
	}
	return nil
}

// ErrNotFound is wrapped by the errors for unknown skills and tools.
var ErrNotFound = errors.New("not found")

// NotFoundError is an unknown skill or tool name. Available lists what
// exists, so the message can help.
type NotFoundError struct {
	Kind      string // "skill" or "tool"
	Name      string
	Available []string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %q not found", e.Kind, e.Name) }

// Unwrap returns ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// Skill returns the effective skill called name.
func (c *Catalog) Skill(name string) (*Skill, error) {
	i := sort.Search(len(c.Skills), func(i int) bool { return c.Skills[i].Name >= name })
	if i < len(c.Skills) && c.Skills[i].Name == name {
		return c.Skills[i], nil
	}
	e := &NotFoundError{Kind: "skill", Name: name}
	for _, s := range c.Skills {
		e.Available = append(e.Available, s.Name)
	}
	return nil, e
}

// Tool returns the effective tool called name.
func (c *Catalog) Tool(name string) (Tool, error) {
	i := sort.Search(len(c.Tools), func(i int) bool { return c.Tools[i].Name >= name })
	if i < len(c.Tools) && c.Tools[i].Name == name {
		return c.Tools[i], nil
	}
	e := &NotFoundError{Kind: "tool", Name: name}
	for _, t := range c.Tools {
		e.Available = append(e.Available, t.Name)
	}
	return Tool{}, e
}
