package skill

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/internal/lazyre"
	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

var (
	skillToolNameRE = lazyre.New(`^[a-z][a-z0-9_]*$`)
	universalToolRE = lazyre.New(`^[a-z0-9-]+$`)
	runtimeExts     = map[string][]string{"python": {".py"}, "node": {".js", ".mjs"}, "bash": {".sh"}}
	paramTypes      = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "object": true, "array": true}
)

func (c *checker) toolFile(t Tool) string {
	if t.Source == FromToolsJSON && c.s.toolsJSON != nil {
		return c.s.toolsJSON.path
	}
	return c.s.SKILLPath()
}

func (c *checker) checkTools() {
	if tf := c.s.toolsJSON; tf != nil && tf.raw != nil && c.at(ProfileUniversal) && tf.hasUniversal() {
		if err := c.l.toolsJSON.Validate(tf.raw); err != nil {
			for _, p := range schemaProblems(err) {
				line := 1
				if len(p.path) > 0 {
					var i int
					if _, err := fmt.Sscan(p.path[0], &i); err == nil && i < len(tf.decls) {
						line = tf.decls[i].line
					}
				}
				c.add("tools-json-schema", tf.path, line, fmt.Sprintf("%s: %s", locationString(p.path), p.msg), "see the Universal spec, Appendix B")
			}
		}
	}
	seen := map[string]int{}
	for _, t := range c.s.Tools {
		file, line := c.toolFile(t), t.line
		if t.Name == "" {
			c.add("tool-name-missing", file, line, "a tool has no name", "add a name to the tool")
		} else if prev, dup := seen[t.Name]; dup {
			c.add("tool-name-duplicate", file, line, fmt.Sprintf("tool %q is declared twice (also on line %d)", t.Name, prev), "rename or remove one of the two tools")
		} else {
			seen[t.Name] = line
			c.checkToolName(t, file, line)
		}
		if strings.TrimSpace(t.Description) == "" {
			c.add("tool-description-missing", file, line, fmt.Sprintf("tool %q has no description", t.Name), "describe what the tool does; agents see it in their tool list")
		}
		if t.Format == FormatSkillTools {
			c.checkParameters(t, file, line)
		} else {
			c.checkToolSchemas(t, file, line)
			if t.Runtime == "" || t.Entrypoint == "" {
				c.add("tool-implementation", file, line, fmt.Sprintf("tool %q needs implementation.runtime and implementation.entrypoint", t.Name), "add implementation: {runtime: python, entrypoint: scripts/tool.py}")
			} else if _, ok := runtimeExts[t.Runtime]; !ok {
				c.add("tool-implementation", file, line, fmt.Sprintf("tool %q has runtime %q; the Universal spec allows python, node and bash", t.Name, t.Runtime), "set runtime to python, node or bash")
			}
		}
		c.checkEntrypoint(t, file, line)
	}
}

func (c *checker) checkToolName(t Tool, file string, line int) {
	if t.Format == FormatSkillTools {
		if !skillToolNameRE().MatchString(t.Name) {
			fix := strings.ReplaceAll(suggestName(t.Name), "-", "_")
			if !skillToolNameRE().MatchString(fix) { // starts with a digit
				fix = "tool_" + fix
			}
			c.add("tool-name-format", file, line, fmt.Sprintf("tool name %q must match ^[a-z][a-z0-9_]*$ (Skill Tools)", t.Name), fmt.Sprintf("rename it to %q", fix))
		}
		return
	}
	if len(t.Name) > 64 || !universalToolRE().MatchString(t.Name) {
		c.add("tool-name-format", file, line, fmt.Sprintf("tool name %q must be 1-64 characters matching ^[a-z0-9-]+$ (Universal)", t.Name), fmt.Sprintf("rename it to %q", suggestName(t.Name)))
	}
}

func (c *checker) checkParameters(t Tool, file string, line int) {
	params, ok := t.raw["parameters"]
	if !ok {
		return
	}
	m, ok := params.(map[string]any)
	if !ok {
		c.add("tool-parameter", file, line, fmt.Sprintf("tool %q: parameters must be an object of name -> definition", t.Name), `write "parameters": {"text": {"type": "string", "description": "..."}}`)
		return
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		def, ok := m[n].(map[string]any)
		if !ok {
			c.add("tool-parameter", file, line, fmt.Sprintf("tool %q: parameter %q must be an object", t.Name, n), `give it "type" and "description"`)
			continue
		}
		if ty, _ := def["type"].(string); !paramTypes[ty] {
			c.add("tool-parameter", file, line, fmt.Sprintf("tool %q: parameter %q has type %v; want string, number, boolean, object or array", t.Name, n, def["type"]), `set "type" to a JSON Schema type`)
		}
		if d, _ := def["description"].(string); d == "" {
			c.add("tool-parameter", file, line, fmt.Sprintf("tool %q: parameter %q has no description", t.Name, n), "describe the parameter; agents see it")
		}
	}
}

func (c *checker) checkToolSchemas(t Tool, file string, line int) {
	if len(t.InputSchema) == 0 {
		c.add("tool-input-schema", file, line, fmt.Sprintf("tool %q has no input_schema", t.Name), "add input_schema: {type: object, properties: {...}, additionalProperties: false}")
	} else {
		var top map[string]any
		if json.Unmarshal(t.InputSchema, &top) != nil {
			c.add("tool-input-schema", file, line, fmt.Sprintf("tool %q: input_schema must be an object", t.Name), "write input_schema as a JSON Schema object")
		} else if _, err := CompileSchema(t.InputSchema); err != nil {
			c.add("tool-input-schema", file, line, fmt.Sprintf("tool %q: input_schema is not valid JSON Schema 2020-12: %s", t.Name, schemaError(err)), "fix the schema keywords")
		} else if top["type"] != "object" {
			c.add("tool-input-schema", file, line, fmt.Sprintf("tool %q: input_schema must have type: object", t.Name), "set input_schema.type to object and put arguments under properties")
		} else if where := looseObject(top, "input_schema"); where != "" {
			c.add("tool-strict-schema", file, line, fmt.Sprintf("tool %q: %s does not set additionalProperties: false", t.Name, where), "add additionalProperties: false for strict hosts (OpenAI strict mode)")
		}
	}
	if len(t.OutputSchema) > 0 {
		if _, err := CompileSchema(t.OutputSchema); err != nil {
			c.add("tool-output-schema", file, line, fmt.Sprintf("tool %q: output_schema is not valid JSON Schema 2020-12: %s", t.Name, schemaError(err)), "fix the schema keywords")
		}
	}
}

// looseObject returns the location of the first object schema that does
// not forbid additional properties, or "".
func looseObject(s map[string]any, at string) string {
	isObject := s["type"] == "object" || s["properties"] != nil
	if isObject && s["additionalProperties"] != false {
		return at
	}
	if props, ok := s["properties"].(map[string]any); ok {
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if sub, ok := props[k].(map[string]any); ok {
				if w := looseObject(sub, at+".properties."+k); w != "" {
					return w
				}
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		return looseObject(items, at+".items")
	}
	return ""
}

// schemaError renders a schema compile error on one line. For a schema that
// breaks the 2020-12 metaschema it names the failing keywords and why,
// rather than the validator's nested report.
func schemaError(err error) string {
	var sve *jsonschema.SchemaValidationError
	if !errors.As(err, &sve) {
		return oneLine(err)
	}
	var parts []string
	for _, p := range schemaProblems(sve.Err) {
		at := "schema"
		if len(p.path) > 0 {
			at = locationString(p.path)
		}
		parts = append(parts, at+": "+p.msg)
	}
	return oneLine(errors.New(strings.Join(parts, "; ")))
}

func oneLine(err error) string {
	s := err.Error()
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

func (c *checker) checkEntrypoint(t Tool, file string, line int) {
	if t.Entrypoint == "" {
		return // Skill Tools stub tool, or reported as tool-implementation
	}
	rel, ok := NormalizeRelPath(t.Entrypoint)
	if !ok {
		c.add("tool-entrypoint-outside", file, line, fmt.Sprintf("tool %q: entrypoint %q is outside the skill folder", t.Name, t.Entrypoint), "put the script inside the skill folder, e.g. scripts/")
		return
	}
	switch err := insideExisting(c.s.Dir, rel); {
	case errors.Is(err, errOutside):
		c.add("tool-entrypoint-outside", file, line, fmt.Sprintf("tool %q: entrypoint %q resolves outside the skill folder", t.Name, t.Entrypoint), "replace the symlink with the script itself")
		return
	case err != nil:
		c.add("tool-entrypoint-missing", file, line, fmt.Sprintf("tool %q: entrypoint %q does not exist", t.Name, t.Entrypoint), "create the script or fix the path")
		return
	}
	if exts, ok := runtimeExts[t.Runtime]; ok && t.Format == FormatUniversal {
		ext := strings.ToLower(path.Ext(rel))
		fit := false
		for _, e := range exts {
			fit = fit || e == ext
		}
		if !fit {
			c.add("tool-runtime-extension", file, line, fmt.Sprintf("tool %q: runtime %s needs a %s entrypoint, not %q", t.Name, t.Runtime, strings.Join(exts, " or "), path.Base(rel)), "rename the script or change the runtime")
		}
	}
}

var errOutside = errors.New("outside the skill folder")

// insideExisting checks that rel exists under dir and, with symlinks
// resolved, stays inside dir.
func insideExisting(dir, rel string) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err != nil {
		return err
	}
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(p)
	if errors.Is(err, fs.ErrNotExist) {
		return errOutside // a dangling link: it points somewhere we can't vouch for
	}
	if err != nil {
		return err
	}
	if r, err := filepath.Rel(root, real); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return errOutside
	}
	return nil
}

func (tf *toolsFile) hasUniversal() bool {
	for _, d := range tf.decls {
		if d.format == FormatUniversal {
			return true
		}
	}
	return false
}
