package skill

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillpm/skillpm/internal/lazyre"
	"gopkg.in/yaml.v3"
)

// document is the frontmatter mapping with the positions lint needs.
type document struct {
	path   string
	offset int // add to a yaml.Node's Line to get the SKILL.md line
	root   *yaml.Node
	keys   []string
	key    map[string]*yaml.Node // key name -> key node
	value  map[string]*yaml.Node // key name -> value node
}

// line returns the SKILL.md line of a node.
func (d *document) line(n *yaml.Node) int {
	if n == nil {
		return 1
	}
	return n.Line + d.offset
}

// keyLine returns the SKILL.md line of a top-level key, or the frontmatter's
// first line when the key is absent.
func (d *document) keyLine(k string) int {
	if n, ok := d.key[k]; ok {
		return d.line(n)
	}
	return 1
}

func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max+1))
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// parse splits SKILL.md into frontmatter and body and decodes the
// frontmatter. Only problems that make the file unusable are errors.
func (s *Skill) parse(path string, data []byte, lim Limits) error {
	if bytes.IndexByte(data, 0) >= 0 {
		return &Error{Path: path, Rule: "encoding", Msg: "SKILL.md is binary (contains NUL bytes)", Fix: "SKILL.md must be UTF-8 text"}
	}
	if bytes.HasPrefix(data, bom) {
		s.HasBOM = true
		data = data[len(bom):]
	}
	if !utf8.Valid(data) {
		return &Error{Path: path, Line: firstInvalidUTF8Line(data), Rule: "encoding", Msg: "SKILL.md is not valid UTF-8", Fix: "re-save the file as UTF-8"}
	}
	if bytes.Contains(data, []byte("\r\n")) {
		s.CRLF = true
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	}

	first, rest, _ := bytes.Cut(data, []byte("\n"))
	if strings.TrimRight(string(first), " \t") != "---" {
		return &Error{Path: path, Line: 1, Rule: "frontmatter-missing", Msg: "SKILL.md does not start with YAML frontmatter", Fix: "begin the file with a '---' line, the name and description fields, and a closing '---' line"}
	}
	fm, body, bodyLine, ok := splitFrontmatter(rest)
	if !ok {
		if len(rest) > lim.MaxFrontmatter {
			return &Error{Path: path, Line: 1, Rule: "frontmatter-too-large", Msg: fmt.Sprintf("frontmatter is unclosed or over the %d byte limit", lim.MaxFrontmatter), Fix: "close the frontmatter with a '---' line and move long content into the body"}
		}
		return &Error{Path: path, Line: 1, Rule: "frontmatter-unclosed", Msg: "frontmatter has no closing '---' line", Fix: "add a '---' line after the last frontmatter field"}
	}
	if len(fm) > lim.MaxFrontmatter {
		return &Error{Path: path, Line: 1, Rule: "frontmatter-too-large", Msg: fmt.Sprintf("frontmatter is %d bytes, over the %d byte limit", len(fm), lim.MaxFrontmatter), Fix: "keep frontmatter to metadata; move long content into the body"}
	}
	s.Body = string(body)
	s.BodyLine = bodyLine

	doc, err := decodeDocument(path, fm, lim.MaxYAMLNodes)
	if err != nil {
		return err
	}
	s.fm = doc
	s.decodeFields()
	return nil
}

// splitFrontmatter finds the closing '---' line in rest (the text after the
// opening line). It returns the frontmatter, the body and the body's line.
func splitFrontmatter(rest []byte) (fm, body []byte, bodyLine int, ok bool) {
	line := 2
	for off := 0; off <= len(rest); {
		end := bytes.IndexByte(rest[off:], '\n')
		var l []byte
		next := len(rest) + 1
		if end < 0 {
			l = rest[off:]
		} else {
			l = rest[off : off+end]
			next = off + end + 1
		}
		if t := strings.TrimRight(string(l), " \t"); t == "---" || t == "..." {
			if next > len(rest) {
				return rest[:off], nil, line + 1, true
			}
			return rest[:off], rest[next:], line + 1, true
		}
		if end < 0 {
			break
		}
		off = next
		line++
	}
	return nil, nil, 0, false
}

func firstInvalidUTF8Line(data []byte) int {
	line := 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		data = data[size:]
	}
	return line
}

var yamlLineRE = lazyre.New(`line (\d+)`)

// decodeDocument parses the frontmatter YAML into a positioned mapping.
func decodeDocument(path string, fm []byte, maxNodes int) (*document, error) {
	d := &document{path: path, offset: 1, key: map[string]*yaml.Node{}, value: map[string]*yaml.Node{}}
	var n yaml.Node
	if err := yaml.Unmarshal(fm, &n); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 1
		if m := yamlLineRE().FindStringSubmatch(msg); m != nil {
			l, _ := strconv.Atoi(m[1])
			line = l + d.offset
			msg = yamlLineRE().ReplaceAllString(msg, "line "+strconv.Itoa(line))
		}
		return nil, &Error{Path: path, Line: line, Rule: "yaml-syntax", Msg: "invalid YAML frontmatter: " + msg, Fix: "quote values that contain ': ' or start with special characters", Err: err}
	}
	switch {
	case n.Kind == 0: // empty frontmatter
		d.root = &yaml.Node{Kind: yaml.MappingNode, Line: 1}
		return d, nil
	case n.Kind == yaml.DocumentNode && len(n.Content) == 1 && n.Content[0].Kind == yaml.MappingNode:
		d.root = n.Content[0]
	default:
		return nil, &Error{Path: path, Line: 2, Rule: "frontmatter-not-mapping", Msg: "frontmatter is not a YAML mapping", Fix: "write frontmatter as 'key: value' lines"}
	}
	budget := maxNodes
	if !withinBudget(d.root, &budget, 0) {
		return nil, &Error{Path: path, Line: 2, Rule: "yaml-too-complex", Msg: fmt.Sprintf("frontmatter expands to more than %d YAML nodes or nests too deeply (alias bomb?)", maxNodes), Fix: "remove YAML aliases (*name) and write values out"}
	}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		k, v := d.root.Content[i], d.root.Content[i+1]
		name := k.Value
		if _, dup := d.key[name]; dup {
			return nil, &Error{Path: path, Line: d.line(k), Rule: "yaml-duplicate-key", Msg: fmt.Sprintf("frontmatter key %q is defined twice (first on line %d)", name, d.line(d.key[name])), Fix: "remove one of the two definitions"}
		}
		d.keys = append(d.keys, name)
		d.key[name] = k
		d.value[name] = v
	}
	return d, nil
}

// withinBudget walks n with aliases expanded and reports whether it visits
// at most *budget nodes, none deeper than 64 levels.
func withinBudget(n *yaml.Node, budget *int, depth int) bool {
	if n == nil {
		return true
	}
	*budget--
	if *budget < 0 || depth > 64 {
		return false
	}
	if n.Kind == yaml.AliasNode {
		return withinBudget(n.Alias, budget, depth+1)
	}
	for _, c := range n.Content {
		if !withinBudget(c, budget, depth+1) {
			return false
		}
	}
	return true
}

// decodeFields fills Frontmatter from the positioned document. Values of the
// wrong type are recorded as problems and left zero.
func (s *Skill) decodeFields() {
	d, f := s.fm, &s.Frontmatter
	for _, k := range d.keys {
		v := d.value[k]
		switch k {
		case "name":
			f.Name = s.scalar(k, v)
		case "description":
			f.Description = s.scalar(k, v)
		case "license":
			f.License = s.scalar(k, v)
		case "compatibility":
			f.Compatibility = s.scalar(k, v)
		case "spec_version":
			f.SpecVersion = s.scalar(k, v)
		case "version":
			f.Version = s.scalar(k, v)
		case "allowed-tools":
			f.AllowedTools = s.allowedTools(v)
		case "metadata":
			s.decodeInto(k, v, &f.Metadata)
		case "tags":
			s.decodeInto(k, v, &f.Tags)
		case "when_to_use":
			s.decodeInto(k, v, &f.WhenToUse)
		case "permissions":
			s.decodeInto(k, v, &f.Permissions)
		case "safety":
			s.decodeInto(k, v, &f.Safety)
		case "secrets":
			var sec struct {
				Required []Secret `yaml:"required"`
			}
			s.decodeInto(k, v, &sec)
			f.Secrets = sec.Required
		case "host_overrides":
			s.decodeInto(k, v, &f.HostOverrides)
		case "evaluation":
			s.decodeInto(k, v, &f.Evaluation)
		case "provenance":
			s.decodeInto(k, v, &f.Provenance)
		case "extensions":
			s.decodeInto(k, v, &f.Extensions)
		case "tools":
			s.Tools = s.frontmatterTools(v)
		case "depends_on":
			s.Dependencies = s.parseDependsOn(v)
		default:
			var val any
			_ = v.Decode(&val)
			if f.Unknown == nil {
				f.Unknown = map[string]any{}
			}
			f.Unknown[k] = jsonCompatible(val)
		}
	}
}

func (s *Skill) problem(rule string, line int, msg, fix string) {
	s.problems = append(s.problems, Diagnostic{Rule: rule, File: s.fm.path, Line: line, Message: msg, Fix: fix})
}

// scalar returns a scalar value's text, recording a problem otherwise.
func (s *Skill) scalar(key string, v *yaml.Node) string {
	if v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind != yaml.ScalarNode {
		s.problem("field-type", s.fm.line(v), fmt.Sprintf("%s must be a string", key), fmt.Sprintf("write %s as a single string value", key))
		return ""
	}
	if v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

func (s *Skill) allowedTools(v *yaml.Node) []string {
	switch v.Kind {
	case yaml.ScalarNode:
		return strings.Fields(v.Value)
	case yaml.SequenceNode:
		var list []string
		if err := v.Decode(&list); err == nil {
			s.problem("allowed-tools-format", s.fm.line(v), "allowed-tools is a list; the Agent Skills spec makes it a space-delimited string", "write allowed-tools: "+strings.Join(list, " "))
			return list
		}
	}
	s.problem("allowed-tools-format", s.fm.line(v), "allowed-tools must be a space-delimited string", "write allowed-tools: Read Bash(git:*)")
	return nil
}

func (s *Skill) decodeInto(key string, v *yaml.Node, out any) {
	if err := v.Decode(out); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if te, ok := err.(*yaml.TypeError); ok && len(te.Errors) > 0 {
			msg = strings.TrimPrefix(te.Errors[0], "yaml: ")
			msg = yamlLineRE().ReplaceAllStringFunc(msg, func(m string) string {
				l, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
				return "line " + strconv.Itoa(l+s.fm.offset)
			})
		}
		s.problem("field-type", s.fm.line(v), fmt.Sprintf("%s has the wrong shape: %s", key, msg), fmt.Sprintf("see the Universal spec for the shape of %s", key))
	}
}

// plain converts the frontmatter to JSON-compatible values for schema
// validation.
func (d *document) plain() (any, error) {
	var v any
	if err := d.root.Decode(&v); err != nil {
		return nil, err
	}
	return jsonCompatible(v), nil
}

// jsonCompatible rewrites YAML-decoded values into what encoding/json
// would produce, so JSON Schema validation sees JSON types.
func jsonCompatible(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = jsonCompatible(e)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[fmt.Sprint(k)] = jsonCompatible(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = jsonCompatible(e)
		}
		return t
	case int:
		return float64(t)
	case int64:
		return float64(t)
	case uint64:
		return float64(t)
	case float32:
		return float64(t)
	case string, bool, float64, nil:
		return t
	default:
		return fmt.Sprint(t) // timestamps and the like
	}
}
