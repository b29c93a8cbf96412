package skill

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// Severity is how serious a diagnostic is.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Profile names the spec a skill is linted against. Each profile includes
// the rules of the ones before it.
type Profile string

// Profiles.
const (
	// ProfileAuto infers the profile from what the skill uses.
	ProfileAuto Profile = ""
	// ProfileAgentSkills is the Agent Skills spec (SKILL.md only).
	ProfileAgentSkills Profile = "agent-skills"
	// ProfileSkillTools adds the Skill Tools spec (tools.json, handlers).
	ProfileSkillTools Profile = "skill-tools"
	// ProfileUniversal adds the Universal Agent Skill spec.
	ProfileUniversal Profile = "universal"
)

// ParseProfile parses a --profile value.
func ParseProfile(s string) (Profile, error) {
	switch p := Profile(s); p {
	case ProfileAuto, ProfileAgentSkills, ProfileSkillTools, ProfileUniversal:
		return p, nil
	}
	return "", fmt.Errorf("unknown profile %q (want agent-skills, skill-tools or universal)", s)
}

// Diagnostic is one lint finding.
type Diagnostic struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	File     string   `json:"file"`
	Line     int      `json:"line,omitempty"`
	Message  string   `json:"message"`
	Fix      string   `json:"fix,omitempty"`
	// Profile is the spec the rule comes from.
	Profile Profile `json:"profile"`
}

func (d Diagnostic) String() string {
	loc := d.File
	if d.Line > 0 {
		loc = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	return fmt.Sprintf("%s: %s [%s] %s", loc, d.Severity, d.Rule, d.Message)
}

// Result is the outcome of linting one skill folder.
type Result struct {
	Dir string `json:"dir"`
	// Name is the skill's name, when SKILL.md could be read.
	Name string `json:"name,omitempty"`
	// Profile is the profile the skill was linted against.
	Profile     Profile      `json:"profile"`
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Skill is the loaded skill, or nil when it could not be loaded.
	Skill *Skill `json:"-"`
}

// Errors counts the diagnostics of error severity.
func (r *Result) Errors() int { return r.count(SeverityError) }

// Warnings counts the diagnostics of warning severity.
func (r *Result) Warnings() int { return r.count(SeverityWarning) }

func (r *Result) count(s Severity) int {
	n := 0
	for _, d := range r.Diagnostics {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// LintOptions configure a lint run. The zero value infers the profile and
// keeps warnings as warnings.
type LintOptions struct {
	Profile Profile
	// Strict turns warnings into errors.
	Strict bool
	Limits Limits
}

// Linter checks skills against the rules of the seeds. Build one with
// NewLinter and reuse it: it holds the compiled spec schemas.
type Linter struct {
	frontmatter *jsonschema.Schema
	toolsJSON   *jsonschema.Schema
}

// NewLinter compiles the embedded Universal schemas.
func NewLinter() (*Linter, error) {
	fm, err := compileEmbedded("frontmatter.schema.json")
	if err != nil {
		return nil, fmt.Errorf("compile frontmatter schema: %w", err)
	}
	tj, err := compileEmbedded("tools.schema.json")
	if err != nil {
		return nil, fmt.Errorf("compile tools.json schema: %w", err)
	}
	return &Linter{frontmatter: fm, toolsJSON: tj}, nil
}

// Lint loads and checks the skill folder dir. A folder that cannot be
// loaded yields a Result with a single error diagnostic, not an error.
func (l *Linter) Lint(dir string, opts LintOptions) *Result {
	res := &Result{Dir: dir, Profile: opts.Profile}
	s, err := LoadWithLimits(dir, opts.Limits)
	if err != nil {
		var le *Error
		if !errors.As(err, &le) {
			le = &Error{Path: dir, Rule: "unreadable", Msg: err.Error()}
		}
		res.Diagnostics = []Diagnostic{{Rule: le.Rule, File: le.Path, Line: le.Line, Message: le.Msg, Fix: le.Fix}}
		if res.Profile == ProfileAuto {
			res.Profile = ProfileAgentSkills
		}
		l.finish(res, opts)
		return res
	}
	res.Skill, res.Name = s, s.Name()
	if res.Profile == ProfileAuto {
		res.Profile = s.InferProfile()
	}
	c := &checker{l: l, s: s, profile: res.Profile, forced: opts.Profile != ProfileAuto}
	c.diags = append(c.diags, s.problems...)
	c.run()
	res.Diagnostics = c.diags
	l.finish(res, opts)
	return res
}

// finish assigns severities and profiles from the rule table, applies
// --strict and sorts.
func (l *Linter) finish(res *Result, opts LintOptions) {
	for i := range res.Diagnostics {
		d := &res.Diagnostics[i]
		r, ok := ruleByID[d.Rule]
		if !ok {
			r = Rule{Severity: SeverityError, Profile: ProfileAgentSkills}
		}
		if d.Severity == "" {
			d.Severity = r.Severity
		}
		if d.Profile == "" {
			d.Profile = r.Profile
		}
		if opts.Strict {
			d.Severity = SeverityError
		}
	}
	sort.SliceStable(res.Diagnostics, func(i, j int) bool {
		a, b := res.Diagnostics[i], res.Diagnostics[j]
		if a.File != b.File {
			// SKILL.md first, then other files by name.
			if fa, fb := filepath.Base(a.File) == FileName, filepath.Base(b.File) == FileName; fa != fb {
				return fa
			}
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
}

// InferProfile returns the profile a skill uses: universal when it sets
// spec_version or declares tools in frontmatter, skill-tools when it has a
// tools.json, agent-skills otherwise.
func (s *Skill) InferProfile() Profile {
	if s.fm != nil && (s.fm.value["spec_version"] != nil || s.fm.value["tools"] != nil) {
		return ProfileUniversal
	}
	if s.toolsJSON != nil {
		return ProfileSkillTools
	}
	return ProfileAgentSkills
}

// maxPerRule bounds the diagnostics one rule reports for one skill, so a
// hostile SKILL.md (a million broken links) cannot make lint's output, or
// its memory, grow with it. The rest are counted in one summary diagnostic.
const maxPerRule = 100

// checker runs the rules over one loaded skill.
type checker struct {
	l       *Linter
	s       *Skill
	profile Profile
	forced  bool // the profile was given, not inferred
	diags   []Diagnostic
	count   map[string]int // diagnostics per rule
	over    []Diagnostic   // first diagnostic past maxPerRule, per rule
}

func (c *checker) add(rule string, file string, line int, msg, fix string) {
	if c.count == nil {
		c.count = map[string]int{}
	}
	c.count[rule]++
	switch n := c.count[rule]; {
	case n == maxPerRule+1:
		c.over = append(c.over, Diagnostic{Rule: rule, File: file, Line: line, Fix: "fix the problems shown and lint again"})
	case n <= maxPerRule:
		c.diags = append(c.diags, Diagnostic{Rule: rule, File: file, Line: line, Message: msg, Fix: fix})
	}
}

// summarize reports how many diagnostics maxPerRule left out.
func (c *checker) summarize() {
	for _, d := range c.over {
		d.Message = fmt.Sprintf("%d more %s problems not shown", c.count[d.Rule]-maxPerRule, d.Rule)
		c.diags = append(c.diags, d)
	}
}

func (c *checker) skillMD(rule string, line int, msg, fix string) {
	c.add(rule, c.s.SKILLPath(), line, msg, fix)
}

// at reports whether the rules of profile p apply.
func (c *checker) at(p Profile) bool {
	rank := map[Profile]int{ProfileAgentSkills: 1, ProfileSkillTools: 2, ProfileUniversal: 3}
	return rank[c.profile] >= rank[p]
}

func (c *checker) run() {
	c.checkEncoding()
	c.checkTextControl()
	c.checkName()
	c.checkDescription()
	c.checkOptionalFields()
	c.checkUnknownFields()
	c.checkVersion()
	if c.at(ProfileUniversal) {
		c.checkUniversalSchema()
		c.checkPermissions()
	}
	c.checkTools()
	c.checkLinks()
	c.runFormatRules()
	c.summarize()
}
