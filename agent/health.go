package agent

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/skill"
)

// Issue is a lint rule an effective skill breaks.
type Issue struct {
	Rule     string         `json:"rule"`
	Severity skill.Severity `json:"severity"`
	Message  string         `json:"message"`
	Fix      string         `json:"fix,omitempty"`
}

func (i Issue) String() string { return fmt.Sprintf("[%s] %s", i.Rule, i.Message) }

// Skipped is an effective skill left out of the catalog, and why.
type Skipped struct {
	Name   string  `json:"name"` // folder name
	Dir    string  `json:"dir"`
	Issues []Issue `json:"issues"`
}

// Screen decides how the catalog serves one skill, from its metadata m:
//
//   - A skill without a name or description, or whose name differs from
//     its folder, is skipped (returned as a *Skipped): agents find skills
//     by folder name and choose them by description, so serving it would
//     show them a skill under a name it does not have, or one they cannot
//     choose. (The Agent Skills spec makes name = folder a requirement.)
//   - A skill whose name has a line break, a control or an invisible
//     character (or is not UTF-8) is skipped: its name is a heading of the
//     prompt and the MCP server's instructions, where a line break would
//     let it write sections under other skills' names, and an invisible
//     character would let it pass for another skill.
//   - A skill's or tool's description over MaxDescription characters is
//     cut to it, and recorded as an issue: descriptions go into every
//     agent's system prompt and tool list.
//   - Tools without a name or description are dropped, as the Skill Tools
//     spec's registration says, and recorded as issues.
//   - Errors found while loading (a broken tools.json, a field of the wrong
//     type) are recorded as issues; the skill is served.
//
// s is returned with Tools and Issues set.
func Screen(s *Skill, m index.Skill) (*Skill, *Skipped) {
	var block []Issue
	switch {
	case strings.TrimSpace(m.Name) == "":
		block = append(block, Issue{Rule: "name-missing", Severity: skill.SeverityError, Message: "SKILL.md has no name", Fix: fmt.Sprintf("add 'name: %s' to the frontmatter", s.Name)})
	case m.Name != s.Name:
		block = append(block, Issue{Rule: "name-mismatch", Severity: skill.SeverityError,
			Message: fmt.Sprintf("name %q differs from its folder %q", m.Name, s.Name),
			Fix:     fmt.Sprintf("rename the folder to %q or set 'name: %s'", m.Name, s.Name)})
	case !showableName(s.Name):
		block = append(block, Issue{Rule: "name-format", Severity: skill.SeverityError,
			Message: fmt.Sprintf("name %q has a line break, a control or an invisible character", s.Name),
			Fix:     "rename the skill and its folder to lowercase letters, digits and hyphens"})
	}
	if strings.TrimSpace(m.Description) == "" {
		block = append(block, Issue{Rule: "description-missing", Severity: skill.SeverityError, Message: "SKILL.md has no description", Fix: "add a description that says what the skill does and when to use it"})
	}
	if len(block) > 0 {
		return s, &Skipped{Name: s.Name, Dir: s.Dir, Issues: block}
	}
	var issues []Issue
	for _, d := range m.Problems {
		if d.Severity == skill.SeverityError {
			issues = append(issues, Issue{Rule: d.Rule, Severity: d.Severity, Message: d.Message, Fix: d.Fix})
		}
	}
	if d, cut := capDescription(s.Description); cut {
		issues = append(issues, Issue{Rule: "description-length", Severity: skill.SeverityError,
			Message: fmt.Sprintf("description is %d characters, over %d; agents are shown its first %d", utf8.RuneCountInString(s.Description), MaxDescription, MaxDescription),
			Fix:     "shorten the description; move detail into the body"})
		s.Description = d
	}
	// The tools that are served: s.Tools itself, uncopied, until one is
	// not.
	tools, dropped := s.Tools, false
	for i, t := range s.Tools {
		var is Issue
		switch {
		case t.Name == "":
			is = Issue{Rule: "tool-name-missing", Severity: skill.SeverityError, Message: fmt.Sprintf("tool #%d has no name; it is not served", i+1), Fix: "add a name to the tool"}
		case strings.TrimSpace(t.Description) == "":
			is = Issue{Rule: "tool-description-missing", Severity: skill.SeverityError, Message: fmt.Sprintf("tool %q has no description; it is not served", t.Name), Fix: "describe what the tool does"}
		default:
			if dropped {
				tools = append(tools, t)
			}
			continue
		}
		issues = append(issues, is)
		if !dropped {
			tools, dropped = slices.Clone(s.Tools[:i]), true
		}
	}
	for i := range tools {
		d, cut := capDescription(tools[i].Description)
		if !cut {
			continue
		}
		if !dropped { // copy before changing: s.Tools may be shared
			tools, dropped = slices.Clone(tools), true
		}
		issues = append(issues, Issue{Rule: "tool-description-length", Severity: skill.SeverityError,
			Message: fmt.Sprintf("tool %q: description is %d characters, over %d; agents are shown its first %d", tools[i].Name, utf8.RuneCountInString(tools[i].Description), MaxDescription, MaxDescription),
			Fix:     "shorten the tool's description"})
		tools[i].Description = d
	}
	if len(tools) == 0 {
		tools = nil
	}
	s.Tools, s.Issues = tools, issues
	return s, nil
}

// MaxDescription is the longest skill or tool description served, in
// characters: the Agent Skills and Universal specs' limit.
const MaxDescription = 1024

// capDescription returns d cut to MaxDescription characters (the last
// one an ellipsis), and whether it was cut. Every skill's description
// goes into the agent's system prompt (the prompt section, the MCP
// server's instructions): one skill must not fill the context.
func capDescription(d string) (string, bool) {
	if len(d) <= MaxDescription || utf8.RuneCountInString(d) <= MaxDescription {
		return d, false
	}
	r := []rune(d)
	return string(r[:MaxDescription-1]) + "…", true
}

// showableName reports whether name can be shown to an agent and a
// person as it is: UTF-8 without spaces other than ' ', controls,
// terminal controls or format characters (zero-width, bidi marks).
func showableName(name string) bool {
	if !utf8.ValidString(name) {
		return false
	}
	for _, r := range name {
		if r != ' ' && unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || skill.IsTerminalControl(r) {
			return false
		}
	}
	return true
}

// ErrInvalid is wrapped by InvalidError.
var ErrInvalid = errors.New("skill is invalid")

// InvalidError is a skill that exists but is not served: it could not be
// read or was skipped by Screen.
type InvalidError struct {
	Name   string
	Issues []Issue
}

func (e *InvalidError) Error() string {
	var msgs []string
	for _, i := range e.Issues {
		msgs = append(msgs, i.String())
	}
	return fmt.Sprintf("skill %q is invalid: %s", e.Name, strings.Join(msgs, "; "))
}

// Unwrap returns ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// invalid returns why the skill in folder name is not served, or nil when
// no such folder was left out.
func (c *Catalog) invalid(name string) *InvalidError {
	for _, sk := range c.Skipped {
		if sk.Name == name {
			return &InvalidError{Name: name, Issues: sk.Issues}
		}
	}
	for _, p := range c.Problems {
		if filepath.Base(p.Dir) != name {
			continue
		}
		is := Issue{Rule: "unreadable", Severity: skill.SeverityError, Message: p.Err.Error(), Fix: "run 'skillpm lint " + p.Dir + "' and fix what it reports"}
		var se *skill.Error
		if errors.As(p.Err, &se) {
			is.Rule, is.Fix = se.Rule, se.Fix
		}
		return &InvalidError{Name: name, Issues: []Issue{is}}
	}
	return nil
}

// invalidText is the Skill tool contract's validation error text.
func invalidText(e *InvalidError) string {
	var msgs []string
	var b strings.Builder
	for _, i := range e.Issues {
		msgs = append(msgs, i.String())
	}
	fmt.Fprintf(&b, "Skill '%s' is invalid: %s\n\nFix by:\n", e.Name, strings.Join(msgs, "; "))
	for _, i := range e.Issues {
		fix := i.Fix
		if fix == "" {
			fix = "fix " + i.Rule + " (skillpm lint shows where)"
		}
		fmt.Fprintf(&b, "- %s\n", fix)
	}
	b.WriteString("\nSkill will be available after fixing these issues.\n")
	return b.String()
}
