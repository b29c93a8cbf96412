package skill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// toolDecl is one tool as written, kept for lint.
type toolDecl struct {
	raw    map[string]any
	line   int
	format ToolFormat
}

// toolsFile is a parsed tools.json.
type toolsFile struct {
	path  string
	raw   any // the whole document, for schema validation
	decls []toolDecl
	tools []Tool
}

// frontmatterTools normalises the frontmatter tools list.
func (s *Skill) frontmatterTools(v *yaml.Node) []Tool {
	if v.Kind != yaml.SequenceNode {
		s.problem("field-type", s.fm.line(v), "tools must be a list of tool objects", "write tools as a YAML list: '- name: ...'")
		return nil
	}
	var tools []Tool
	for _, item := range v.Content {
		var m any
		if err := item.Decode(&m); err != nil {
			continue
		}
		raw, ok := jsonCompatible(m).(map[string]any)
		if !ok {
			s.problem("field-type", s.fm.line(item), "each tools entry must be a mapping", "write each tool as 'name:', 'description:', 'input_schema:' and 'implementation:' fields")
			continue
		}
		t := toolFromMap(raw, FromFrontmatter)
		t.line = s.fm.line(item)
		tools = append(tools, t)
	}
	return tools
}

// toolFromMap normalises one tool object in either the Universal or the
// Skill Tools shape.
func toolFromMap(m map[string]any, src ToolSource) Tool {
	t := Tool{Source: src, Format: detectToolFormat(m, src), raw: m}
	t.Name, _ = m["name"].(string)
	t.Description, _ = m["description"].(string)
	if t.Format == FormatSkillTools {
		t.Entrypoint, _ = m["script"].(string)
		t.Runtime = RuntimeForPath(t.Entrypoint)
		t.InputSchema = parametersSchema(m["parameters"])
		return t
	}
	if v, ok := m["input_schema"]; ok {
		t.InputSchema = mustJSON(v)
	}
	if v, ok := m["output_schema"]; ok {
		t.OutputSchema = mustJSON(v)
	}
	if c, ok := m["confirmation"].(map[string]any); ok {
		t.Confirmation = &ToolConfirm{}
		t.Confirmation.Level, _ = c["level"].(string)
		t.Confirmation.Prompt, _ = c["prompt"].(string)
	}
	impl, _ := m["implementation"].(map[string]any)
	t.Runtime, _ = impl["runtime"].(string)
	t.Entrypoint, _ = impl["entrypoint"].(string)
	t.Handler, _ = impl["handler"].(string)
	if n, ok := impl["timeout_seconds"].(float64); ok {
		t.TimeoutSeconds = int(n)
	}
	if d, ok := impl["dependencies"].(map[string]any); ok {
		var deps ToolDeps
		if json.Unmarshal(mustJSON(d), &deps) == nil {
			t.Dependencies = &deps
		}
	}
	return t
}

// detectToolFormat tells the two tool shapes apart. In tools.json a tool
// with neither input_schema nor implementation is a Skill Tools tool: its
// script and parameters are optional, and {name, description} alone is a
// stub tool.
func detectToolFormat(m map[string]any, src ToolSource) ToolFormat {
	_, script := m["script"]
	_, params := m["parameters"]
	_, schema := m["input_schema"]
	_, impl := m["implementation"]
	if (script || params || src == FromToolsJSON) && !schema && !impl {
		return FormatSkillTools
	}
	return FormatUniversal
}

// RuntimeForPath infers a tool runtime from a handler's file extension,
// as the Skill Tools spec does. It returns "" for other extensions.
func RuntimeForPath(p string) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".js", ".mjs":
		return "node"
	case ".py":
		return "python"
	case ".sh":
		return "bash"
	}
	return ""
}

// parametersSchema converts Skill Tools parameters into a JSON Schema
// object: every parameter not marked optional is required.
func parametersSchema(v any) json.RawMessage {
	params, _ := v.(map[string]any)
	props := map[string]any{}
	required := []string{}
	for name, p := range params {
		def, _ := p.(map[string]any)
		prop := map[string]any{}
		for k, e := range def {
			if k != "optional" {
				prop[k] = e
			}
		}
		props[name] = prop
		if opt, _ := def["optional"].(bool); !opt {
			required = append(required, name)
		}
	}
	sort.Strings(required)
	return mustJSON(map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	})
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// loadTools reads tools.json, if present, and settles which tool source
// is effective: frontmatter tools win, and a disagreeing tools.json is stale.
func (s *Skill) loadTools(lim Limits) error {
	p := filepath.Join(s.Dir, ToolsFileName)
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tf := &toolsFile{path: p}
	s.toolsJSON = tf
	switch {
	case err != nil:
		s.problems = append(s.problems, Diagnostic{Rule: "tools-json-syntax", File: p, Message: "tools.json cannot be read: " + err.Error(), Fix: "check the file's permissions"})
		return nil
	case !fi.Mode().IsRegular():
		s.problems = append(s.problems, Diagnostic{Rule: "tools-json-syntax", File: p, Message: "tools.json is not a regular file", Fix: "make tools.json a JSON file"})
		return nil
	case errors.Is(insideExisting(s.Dir, ToolsFileName), errOutside):
		s.problems = append(s.problems, Diagnostic{Rule: "tools-json-syntax", File: p, Message: "tools.json is a symlink to a file outside the skill folder; it was not read", Fix: "replace the symlink with the file itself"})
		return nil
	case fi.Size() > lim.MaxToolsFile:
		s.problems = append(s.problems, Diagnostic{Rule: "tools-json-syntax", File: p, Message: fmt.Sprintf("tools.json is %d bytes, over the %d byte limit", fi.Size(), lim.MaxToolsFile), Fix: "declare fewer or smaller tools"})
		return nil
	}
	data, err := readLimited(p, lim.MaxToolsFile)
	if err != nil {
		s.problems = append(s.problems, Diagnostic{Rule: "tools-json-syntax", File: p, Message: "tools.json cannot be read: " + err.Error(), Fix: "check the file's permissions"})
		return nil
	}
	if err := tf.parse(data); err != nil {
		s.problems = append(s.problems, *err)
		return nil
	}
	if s.fm.value["tools"] == nil {
		s.Tools = tf.tools
		return nil
	}
	if !sameTools(s.Tools, tf.tools) {
		s.problems = append(s.problems, Diagnostic{Rule: "tools-json-stale", File: p, Line: 1,
			Message: "tools.json disagrees with the tools in SKILL.md frontmatter; the frontmatter wins",
			Fix:     "regenerate it from SKILL.md with 'skillpm tools --write-tools-json " + s.Dir + "', or delete it"})
	}
	return nil
}

// parse decodes tools.json, remembering each element's line.
func (tf *toolsFile) parse(data []byte) *Diagnostic {
	data = bytes.TrimPrefix(data, bom)
	if err := json.Unmarshal(data, &tf.raw); err != nil {
		line := 1
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line = 1 + bytes.Count(data[:min(int(se.Offset), len(data))], []byte("\n"))
		}
		return &Diagnostic{Rule: "tools-json-syntax", File: tf.path, Line: line, Message: "tools.json is not valid JSON: " + err.Error(), Fix: "fix the JSON syntax"}
	}
	if _, ok := tf.raw.([]any); !ok {
		return &Diagnostic{Rule: "tools-json-syntax", File: tf.path, Line: 1, Message: "tools.json must be a JSON array of tools", Fix: "wrap the tool objects in [ ... ]"}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // '['
		return nil
	}
	for dec.More() {
		off := dec.InputOffset()
		var el any
		if err := dec.Decode(&el); err != nil {
			break
		}
		// InputOffset is before any whitespace that precedes the element.
		start := int(off)
		for start < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[start])) {
			start++
		}
		line := 1 + bytes.Count(data[:start], []byte("\n"))
		m, ok := jsonCompatible(el).(map[string]any)
		if !ok {
			tf.decls = append(tf.decls, toolDecl{line: line})
			continue
		}
		t := toolFromMap(m, FromToolsJSON)
		t.line = line
		tf.decls = append(tf.decls, toolDecl{raw: m, line: line, format: t.Format})
		tf.tools = append(tf.tools, t)
	}
	return nil
}

// sameTools reports whether two declarations describe the same tools.
func sameTools(a, b []Tool) bool {
	if len(a) != len(b) {
		return false
	}
	key := func(t Tool) string {
		return strings.Join([]string{t.Name, t.Description, canonJSON(t.InputSchema), canonJSON(t.OutputSchema), t.Runtime, path.Clean(t.Entrypoint), t.Handler}, "\x00")
	}
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i := range a {
		ka[i], kb[i] = key(a[i]), key(b[i])
	}
	sort.Strings(ka)
	sort.Strings(kb)
	for i := range ka {
		if ka[i] != kb[i] {
			return false
		}
	}
	return true
}

// canonJSON re-encodes JSON with sorted keys so equal documents compare equal.
func canonJSON(b json.RawMessage) string {
	if len(b) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(b, &v) != nil {
		return string(b)
	}
	return string(mustJSON(v))
}
