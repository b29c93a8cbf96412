package skill

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// formatRules are the rules that complete the seeds' requirements: the
// Universal safety minimum, glob syntax, the Claude API upload limit, the
// scaffold's placeholders, host overrides and smoke tests. They follow the
// base table in Rules().
var formatRules = []Rule{
	{"safety-missing", SeverityError, ProfileUniversal, "a Universal skill has the safety block the spec makes a minimum (require_confirmation_for, redact)"},
	{"permissions-glob", SeverityError, ProfileUniversal, "permission globs are root-relative, use '/', no '!', no '..', and are well-formed"},
	{"skill-too-large", SeverityError, ProfileUniversal, "the skill folder is at most 8 MiB in all (the Claude API upload limit; a warning outside the Universal profile)"},
	{"placeholder-text", SeverityWarning, ProfileAgentSkills, "the placeholder text skillpm init writes has been replaced"},
	{"host-unknown", SeverityWarning, ProfileUniversal, "host_overrides name a reserved host (claude-api, claude-code, mcp, openai-responses, codex-cli)"},
	{"host-override-invalid", SeverityError, ProfileUniversal, "a host override applied to the skill still validates against the Universal schema and keeps its name and tools"},
	{"smoke-test", SeverityError, ProfileUniversal, "evaluation.smoke_tests name declared tools, with inputs their input_schema accepts and one expectation each"},
}

// MaxSkillSize is the largest skill folder, all files combined, that the
// Claude API accepts for upload (8 MB; counted here as 8 MiB).
const MaxSkillSize = 8 << 20

// maxWalkEntries bounds the files skill-too-large counts, so a hostile
// folder with millions of entries cannot stall lint.
const maxWalkEntries = 100000

// checkSafety reports a Universal skill without the minimum safety block of
// §8: require_confirmation_for (a list) and redact (a mapping).
func (c *checker) checkSafety() {
	if !c.at(ProfileUniversal) {
		return
	}
	d := c.s.fm
	fix := "add safety: {require_confirmation_for: [destructive_writes, external_network], redact: {secrets: true, pii: true}}"
	if d.value["safety"] == nil {
		c.skillMD("safety-missing", 1, "the Universal spec (§8) requires a safety block", fix)
		return
	}
	sf := c.s.Frontmatter.Safety
	if sf == nil {
		return // wrong type: reported by the schema
	}
	line := d.keyLine("safety")
	if _, ok := sf["require_confirmation_for"].([]any); !ok {
		c.skillMD("safety-missing", line, "safety has no require_confirmation_for list", "add require_confirmation_for: [destructive_writes, external_network] (or [] when nothing needs confirmation)")
	}
	if _, ok := sf["redact"].(map[string]any); !ok {
		c.skillMD("safety-missing", line, "safety has no redact mapping", "add redact: {secrets: true, pii: true}")
	}
}

// checkPermissionGlobs applies §8's glob semantics: root-relative paths
// with '/' separators, '*' within a segment, '**' across segments, and no
// negation.
func (c *checker) checkPermissionGlobs() {
	p := c.s.Frontmatter.Permissions
	if p == nil {
		return
	}
	for _, list := range []struct {
		key  string
		pats []string
	}{{"read", p.Filesystem.Read}, {"write", p.Filesystem.Write}} {
		for i, g := range list.pats {
			msg, fix := GlobProblem(g)
			if msg == "" {
				continue
			}
			line := c.s.fm.line(nodeAt(c.s.fm.root, []string{"permissions", "filesystem", list.key, strconv.Itoa(i)}))
			c.skillMD("permissions-glob", line, fmt.Sprintf("filesystem.%s %q: %s", list.key, g, msg), fix)
		}
	}
}

// GlobProblem checks one permission glob against the Universal spec's glob
// semantics and returns what is wrong with it and the fix, or "" when it
// is well-formed.
func GlobProblem(g string) (msg, fix string) {
	switch {
	case strings.TrimSpace(g) == "":
		return "the pattern is empty", "remove the empty entry"
	case strings.HasPrefix(g, "!"):
		return "negation globs are not part of the spec; permissions only grant", "remove the pattern and grant narrower globs instead"
	case strings.Contains(g, `\`):
		return "patterns use '/' as the separator", fmt.Sprintf("write %q", strings.ReplaceAll(g, `\`, "/"))
	case strings.HasPrefix(g, "/") || filepath.VolumeName(g) != "" || (len(g) > 1 && g[1] == ':'):
		return "the pattern is absolute; patterns are relative to the skill root", fmt.Sprintf("write %q", strings.TrimLeft(g, "/"))
	}
	for _, seg := range strings.Split(g, "/") {
		switch {
		case seg == "..":
			return "'..' leaves the root", "grant paths under the root only"
		case seg == "**":
			continue
		case strings.Contains(seg, "**"):
			return "'**' must be a whole path segment", fmt.Sprintf("write %q", strings.ReplaceAll(g, seg, "**/"+strings.ReplaceAll(seg, "**", "*")))
		}
		if _, err := path.Match(seg, ""); err != nil {
			return "the pattern is malformed (an unclosed '[' or a dangling escape)", "close every '[' with ']'"
		}
	}
	return "", ""
}

// checkSize reports a skill folder larger than the Claude API accepts. It
// counts regular files without following symlinks.
func (c *checker) checkSize() {
	var total int64
	n := 0
	_ = filepath.WalkDir(c.s.Dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts are other rules' business
		}
		if n++; n > maxWalkEntries || total > MaxSkillSize {
			return filepath.SkipAll
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	if total <= MaxSkillSize {
		return
	}
	sev := SeverityWarning
	if c.at(ProfileUniversal) {
		sev = SeverityError
	}
	c.diags = append(c.diags, Diagnostic{Rule: "skill-too-large", Severity: sev, File: c.s.Dir,
		Message: fmt.Sprintf("the skill's files add up to more than %d bytes, the Claude API's upload limit", MaxSkillSize),
		Fix:     "move large assets out of the skill (download them at run time or vendor smaller ones)"})
}

// scaffoldPlaceholders are the texts skillpm init writes for the author to
// replace. They are matched as written in the templates.
var scaffoldPlaceholders = []string{
	"Describe the tasks and phrases that should make an agent load this skill.",
	"Step-by-step instructions for the agent.",
	"Replace with what the tool really does.",
}

// placeholderDescription is the suffix of the description skillpm init
// writes when none is given.
const placeholderDescription = " does and when an agent should use it."

func (c *checker) checkPlaceholders() {
	fix := "replace the placeholder skillpm init wrote with the real text"
	if d := c.s.Frontmatter.Description; strings.HasPrefix(d, "Describe what ") && strings.HasSuffix(d, placeholderDescription) {
		c.skillMD("placeholder-text", c.s.fm.keyLine("description"), "description is still the placeholder skillpm init wrote", "say what the skill does and when to use it")
	}
	for i, l := range strings.Split(c.s.Body, "\n") {
		for _, p := range scaffoldPlaceholders {
			if strings.Contains(l, p) {
				c.skillMD("placeholder-text", c.s.BodyLine+i, fmt.Sprintf("placeholder text %q", p), fix)
			}
		}
	}
	for _, t := range c.s.Tools {
		for _, p := range scaffoldPlaceholders {
			if strings.Contains(t.Description, p) {
				c.add("placeholder-text", c.toolFile(t), t.line, fmt.Sprintf("tool %q: description still has the placeholder %q", t.Name, p), fix)
			}
		}
	}
}

// runFormatRules runs the rules of formatRules.
func (c *checker) runFormatRules() {
	c.checkSafety()
	if c.at(ProfileUniversal) {
		c.checkPermissionGlobs()
	}
	c.checkSize()
	c.checkPlaceholders()
	c.checkHostOverrides()
	c.checkSmokeTests()
}

// LoadProblems returns the rule violations found while loading the skill
// (a broken tools.json, a field of the wrong type, a bad depends_on entry),
// with severity and profile filled in. Lint reports them and more; commands
// that serve a skill without linting it report these.
func (s *Skill) LoadProblems() []Diagnostic {
	out := make([]Diagnostic, 0, len(s.problems))
	for _, d := range s.problems {
		r := ruleByID[d.Rule]
		if d.Severity == "" {
			d.Severity = r.Severity
		}
		if d.Profile == "" {
			d.Profile = r.Profile
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
