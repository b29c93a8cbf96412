package audit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// InlineMarker starts an inline suppression. The rest of the comment
// names the rules (comma-separated) and gives the reason:
//
//	# skillpm-audit-ignore download-exec installs our own CLI, pinned by digest below
//
// It applies to findings on its own line and on the line after it; a
// marker without a reason suppresses nothing.
const InlineMarker = "skillpm-audit-ignore"

// AllowFileName is the per-project allow-list, beside skills.yaml.
const AllowFileName = ".skillpm-audit.yaml"

// ErrAllowList is wrapped by errors about an unreadable or invalid
// allow-list.
var ErrAllowList = errors.New("invalid audit allow-list")

// AllowList is a project's reviewed findings: .skillpm-audit.yaml.
//
//	version: 1
//	ignore:
//	  - rule: download-exec          # required: a rule ID
//	    skill: uv-setup              # optional: only this skill
//	    file: scripts/install.sh     # optional: a path glob in the skill ("dir/**" for a folder)
//	    reason: installs uv with its official installer   # required
type AllowList struct {
	// Path is the file the list was read from, for messages.
	Path    string       `yaml:"-"`
	Version int          `yaml:"version"`
	Ignore  []AllowEntry `yaml:"ignore"`
}

// AllowEntry suppresses one rule, optionally for one skill or file.
type AllowEntry struct {
	Rule   string `yaml:"rule"`
	Skill  string `yaml:"skill,omitempty"`
	File   string `yaml:"file,omitempty"`
	Reason string `yaml:"reason"`
	line   int
}

// maxAllowList bounds the allow-list file.
const maxAllowList = 1 << 20

// LoadAllowList reads and validates an allow-list file.
func LoadAllowList(name string) (*AllowList, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w: %w", name, ErrAllowList, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAllowList+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w: %w", name, ErrAllowList, err)
	}
	if len(data) > maxAllowList {
		return nil, fmt.Errorf("%s: %w: over %d bytes", name, ErrAllowList, maxAllowList)
	}
	return ParseAllowList(name, data)
}

// ParseAllowList validates an allow-list's bytes; name is used in errors,
// which give the line.
func ParseAllowList(name string, data []byte) (*AllowList, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrAllowList, err)
	}
	l := &AllowList{Path: name}
	if len(doc.Content) == 0 {
		return l, nil
	}
	if err := doc.Decode(l); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrAllowList, err)
	}
	if l.Version != 0 && l.Version != 1 {
		return nil, fmt.Errorf("%s: %w: version is %d; want 1", name, ErrAllowList, l.Version)
	}
	// Entry lines, for messages: the "ignore" sequence's items.
	var items []*yaml.Node
	if root := doc.Content[0]; root.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(root.Content); i += 2 {
			if root.Content[i].Value == "ignore" {
				items = root.Content[i+1].Content
			}
		}
	}
	for i := range l.Ignore {
		e := &l.Ignore[i]
		if i < len(items) {
			e.line = items[i].Line
		}
		at := fmt.Sprintf("%s:%d", name, e.line)
		if _, ok := RuleByID(e.Rule); !ok {
			return nil, fmt.Errorf("%s: %w: unknown rule %q (see 'skillpm audit --rules')", at, ErrAllowList, e.Rule)
		}
		if strings.TrimSpace(e.Reason) == "" {
			return nil, fmt.Errorf("%s: %w: the entry for %s has no reason; say why the finding is acceptable", at, ErrAllowList, e.Rule)
		}
		if e.File != "" {
			if _, err := path.Match(strings.TrimSuffix(e.File, "/**"), "x"); err != nil {
				return nil, fmt.Errorf("%s: %w: file %q is not a valid glob", at, ErrAllowList, e.File)
			}
		}
	}
	return l, nil
}

func (e *AllowEntry) matches(skillName string, f Finding) bool {
	if e.Rule != f.Rule || (e.Skill != "" && e.Skill != skillName) {
		return false
	}
	if e.File == "" {
		return true
	}
	if dir, ok := strings.CutSuffix(e.File, "/**"); ok {
		return f.File == dir || strings.HasPrefix(f.File, dir+"/")
	}
	ok, _ := path.Match(e.File, f.File)
	return ok
}

// suppress marks the findings that an inline comment or the allow-list
// suppresses.
func (s *scanner) suppress() {
	lines := map[string][][]byte{} // file -> its lines, split once
	for i := range s.rep.Findings {
		f := &s.rep.Findings[i]
		if s.opts.Inline && f.Line > 0 {
			l, ok := lines[f.File]
			if !ok {
				if data := s.texts[f.File]; data != nil {
					l = bytes.Split(data, []byte("\n"))
				}
				lines[f.File] = l
			}
			if sup := inlineSuppression(l, f.File, f.Line, f.Rule); sup != nil {
				f.Suppressed = sup
				continue
			}
		}
		if l := s.opts.AllowList; l != nil {
			for j := range l.Ignore {
				if e := &l.Ignore[j]; e.matches(s.rep.Skill, *f) {
					f.Suppressed = &Suppression{Kind: "allow-list", Reason: e.Reason, Source: fmt.Sprintf("%s:%d", l.Path, e.line)}
					break
				}
			}
		}
	}
}

// inlineSuppression looks for a marker naming rule on line n or n-1 of
// a file's lines.
func inlineSuppression(lines [][]byte, file string, n int, rule string) *Suppression {
	if lines == nil {
		return nil
	}
	for _, ln := range []int{n, n - 1} {
		if ln < 1 || ln > len(lines) {
			continue
		}
		text := string(lines[ln-1])
		i := strings.Index(text, InlineMarker)
		if i < 0 {
			continue
		}
		rest := strings.TrimSpace(text[i+len(InlineMarker):])
		for _, end := range []string{"-->", "*/", "#}"} {
			rest = strings.TrimSpace(strings.TrimSuffix(rest, end))
		}
		ids, reason, _ := strings.Cut(rest, " ")
		reason = strings.TrimSpace(reason)
		if reason == "" || !slices.Contains(strings.Split(ids, ","), rule) {
			continue
		}
		return &Suppression{Kind: "inline", Reason: reason, Source: fmt.Sprintf("%s:%d", file, ln)}
	}
	return nil
}
