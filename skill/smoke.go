package skill

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// SmokeTest is one entry of a skill's evaluation.smoke_tests: call Tool
// with Input and hold its output to Expect.
//
//	evaluation:
//	  smoke_tests:
//	    - name: echoes            # optional; default "<tool>#<index>"
//	      tool: echo-text         # a tool the skill declares
//	      input: {text: hi}       # arguments; must satisfy input_schema
//	      expect:                 # exactly one of:
//	        equals: {result: hi}  #   the output, as JSON, equals this value
//	        # schema: {...}       #   the output validates against this JSON Schema
//	        # contains: "hi"      #   the output's text (a string output, or its JSON) contains this
type SmokeTest struct {
	Name   string         `json:"name"`
	Tool   string         `json:"tool"`
	Input  map[string]any `json:"input"`
	Expect Expectation    `json:"expect"`
	// Line is the SKILL.md line the test starts on.
	Line int `json:"line,omitempty"`
}

// Expectation is what a smoke test holds a tool's output to. Exactly one
// field is set.
type Expectation struct {
	Equals   any            `json:"equals,omitempty"`
	Schema   map[string]any `json:"schema,omitempty"`
	Contains *string        `json:"contains,omitempty"`
	// HasEquals tells an expected null apart from no equals key.
	HasEquals bool `json:"-"`
}

// ErrSmokeFailed is wrapped by Check's errors for outputs that miss their
// expectation.
var ErrSmokeFailed = errors.New("smoke test failed")

// Check holds output (the tool's result as JSON) to the expectation. It
// returns nil when the output meets it, or an error wrapping ErrSmokeFailed
// that says how it missed.
func (e Expectation) Check(output json.RawMessage) error {
	var got any
	if err := json.Unmarshal(output, &got); err != nil {
		return fmt.Errorf("%w: output is not JSON: %v", ErrSmokeFailed, err)
	}
	switch {
	case e.HasEquals:
		want := jsonCompatible(normalise(e.Equals))
		if !reflect.DeepEqual(jsonCompatible(got), want) {
			w, _ := json.Marshal(want)
			return fmt.Errorf("%w: output %s, want %s", ErrSmokeFailed, clip(output), clip(w))
		}
	case e.Schema != nil:
		b, _ := json.Marshal(e.Schema)
		sch, err := CompileSchema(b)
		if err != nil {
			return fmt.Errorf("expect.schema is not valid JSON Schema: %s", schemaError(err))
		}
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(output))
		if err != nil {
			return fmt.Errorf("%w: output is not JSON: %v", ErrSmokeFailed, err)
		}
		if err := sch.Validate(inst); err != nil {
			var parts []string
			for _, p := range schemaProblems(err) {
				parts = append(parts, locationString(p.path)+": "+p.msg)
			}
			return fmt.Errorf("%w: output %s does not match expect.schema: %s", ErrSmokeFailed, clip(output), strings.Join(parts, "; "))
		}
	case e.Contains != nil:
		text := string(output)
		if s, ok := got.(string); ok {
			text = s
		}
		if !strings.Contains(text, *e.Contains) {
			return fmt.Errorf("%w: output %s does not contain %q", ErrSmokeFailed, clip(output), *e.Contains)
		}
	default:
		return errors.New("the test has no expectation")
	}
	return nil
}

// normalise round-trips v through JSON so YAML-decoded values compare
// equal to decoded output.
func normalise(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func clip(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// smokeProblem is a smoke test entry that is not well-formed.
type smokeProblem struct {
	index int
	field string // the field at fault, for the line
	msg   string
	fix   string
}

// SmokeTests returns the skill's evaluation.smoke_tests. Entries that are
// not well-formed are left out; lint reports them (rule smoke-test).
func (s *Skill) SmokeTests() []SmokeTest {
	tests, _ := s.smokeTests()
	return tests
}

func (s *Skill) smokeTests() ([]SmokeTest, []smokeProblem) {
	raw, ok := s.Frontmatter.Evaluation["smoke_tests"]
	if !ok {
		return nil, nil
	}
	list, ok := raw.([]any)
	if !ok {
		return nil, []smokeProblem{{index: -1, msg: "evaluation.smoke_tests must be a list", fix: "write smoke_tests as a list of {tool, input, expect} entries"}}
	}
	var out []SmokeTest
	var probs []smokeProblem
	for i, item := range list {
		m, ok := jsonCompatible(item).(map[string]any)
		if !ok {
			probs = append(probs, smokeProblem{i, "", "must be a mapping with tool, input and expect", "write {tool: NAME, input: {...}, expect: {equals: ...}}"})
			continue
		}
		t := SmokeTest{Line: s.smokeLine(i, "")}
		bad := false
		for k := range m {
			switch k {
			case "name", "tool", "input", "expect":
			default:
				probs = append(probs, smokeProblem{i, k, fmt.Sprintf("unknown key %q", k), "use only name, tool, input and expect"})
				bad = true
			}
		}
		t.Name, _ = m["name"].(string)
		if t.Tool, _ = m["tool"].(string); t.Tool == "" {
			probs = append(probs, smokeProblem{i, "tool", "has no tool", "name the tool the test calls"})
			bad = true
		}
		if t.Name == "" {
			t.Name = t.Tool + "#" + strconv.Itoa(i)
		}
		if in, ok := m["input"]; ok {
			if t.Input, ok = in.(map[string]any); !ok {
				probs = append(probs, smokeProblem{i, "input", "input must be a mapping of arguments", "write input: {arg: value}"})
				bad = true
			}
		}
		if t.Input == nil {
			t.Input = map[string]any{}
		}
		ex, ok := m["expect"].(map[string]any)
		if !ok {
			probs = append(probs, smokeProblem{i, "expect", "has no expect mapping", "add expect: {equals: ...}, {schema: {...}} or {contains: \"...\"}"})
			continue
		}
		n := 0
		for k, v := range ex {
			switch k {
			case "equals":
				t.Expect.Equals, t.Expect.HasEquals = v, true
			case "schema":
				if t.Expect.Schema, ok = v.(map[string]any); !ok {
					probs = append(probs, smokeProblem{i, "expect", "expect.schema must be a JSON Schema object", "write expect: {schema: {type: object, ...}}"})
					bad = true
				} else if b, _ := json.Marshal(v); true {
					if _, err := CompileSchema(b); err != nil {
						probs = append(probs, smokeProblem{i, "expect", "expect.schema is not valid JSON Schema 2020-12: " + schemaError(err), "fix the schema keywords"})
						bad = true
					}
				}
			case "contains":
				str, ok := v.(string)
				if !ok {
					probs = append(probs, smokeProblem{i, "expect", "expect.contains must be a string", "write expect: {contains: \"text\"}"})
					bad = true
				}
				t.Expect.Contains = &str
			default:
				probs = append(probs, smokeProblem{i, "expect", fmt.Sprintf("unknown expectation %q", k), "use equals, schema or contains"})
				bad = true
			}
			n++
		}
		if n != 1 {
			probs = append(probs, smokeProblem{i, "expect", fmt.Sprintf("expect has %d expectations; it needs exactly one", n), "keep one of equals, schema or contains"})
			bad = true
		}
		if !bad {
			out = append(out, t)
		}
	}
	return out, probs
}

func (s *Skill) smokeLine(i int, field string) int {
	if s.fm == nil {
		return 0
	}
	p := []string{"evaluation", "smoke_tests"}
	if i >= 0 {
		p = append(p, strconv.Itoa(i))
		if field != "" {
			p = append(p, field)
		}
	}
	return s.fm.line(nodeAt(s.fm.root, p))
}

// checkSmokeTests checks evaluation.smoke_tests against the declared tools
// and their schemas.
func (c *checker) checkSmokeTests() {
	tests, probs := c.s.smokeTests()
	for _, p := range probs {
		where := "evaluation.smoke_tests"
		if p.index >= 0 {
			where = fmt.Sprintf("evaluation.smoke_tests[%d]", p.index)
		}
		c.skillMD("smoke-test", c.s.smokeLine(p.index, p.field), where+": "+p.msg, p.fix)
	}
	for _, t := range tests {
		line := t.Line
		tool := c.s.Tool(t.Tool)
		if tool == nil {
			var names []string
			for _, d := range c.s.Tools {
				names = append(names, d.Name)
			}
			c.skillMD("smoke-test", line, fmt.Sprintf("smoke test %q calls tool %q, which the skill does not declare", t.Name, t.Tool), fmt.Sprintf("call one of the declared tools %v", names))
			continue
		}
		if len(tool.InputSchema) > 0 {
			if sch, err := CompileSchema(tool.InputSchema); err == nil {
				if err := sch.Validate(jsonCompatible(normalise(t.Input))); err != nil {
					for _, p := range schemaProblems(err) {
						c.skillMD("smoke-test", line, fmt.Sprintf("smoke test %q: input does not satisfy %s's input_schema: %s: %s", t.Name, t.Tool, inputLocation(p.path), p.msg), "give input the arguments the tool's input_schema asks for")
					}
				}
			}
		}
		if t.Expect.HasEquals && len(tool.OutputSchema) > 0 {
			if sch, err := CompileSchema(tool.OutputSchema); err == nil {
				if err := sch.Validate(jsonCompatible(normalise(t.Expect.Equals))); err != nil {
					for _, p := range schemaProblems(err) {
						c.skillMD("smoke-test", line, fmt.Sprintf("smoke test %q: expect.equals can never be %s's output: it breaks output_schema at %s: %s", t.Name, t.Tool, inputLocation(p.path), p.msg), "make the expected output match the tool's output_schema")
					}
				}
			}
		}
	}
}

// inputLocation names a location inside a tool's arguments or output.
func inputLocation(path []string) string {
	if len(path) == 0 {
		return "(top level)"
	}
	return locationString(path)
}
