package selfschema

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// chain is n $defs, each applying the next twice (allOf) at the same
// place: validating the last takes 2^n applications.
func chain(n int, keyword string) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"d%d":{%q:[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, keyword, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"d%d":{"type":"number"}`, n))
	return `{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
}

func TestCompileRefusesCostlySchemas(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"allOf chain", chain(40, "allOf")},
		{"anyOf chain", chain(40, "anyOf")},
		{"oneOf chain", chain(40, "oneOf")},
		// Applies itself twice to its member a: 2^depth on {a:{a:...}}.
		{"recursive, twice per level", `{"allOf":[{"properties":{"a":{"$ref":"#"}}},{"properties":{"a":{"$ref":"#"}}}]}`},
		{"recursive items, twice per level", `{"$defs":{"t":{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/t"},{"$ref":"#/$defs/t"}]}}},"type":"object","properties":{"t":{"$ref":"#/$defs/t"}}}`},
		// Nested, not recursive: each level applies the next twice.
		{"nested", nestedTwice(30)},
		// Grows by one level's cost per level: linear per place, so
		// quadratic in the depth of the instance.
		{"growing with depth", `{"$defs":{"b":{"properties":{"a":{"$ref":"#/$defs/b"}}}},"properties":{"a":{"$ref":"#"}},"allOf":[{"properties":{"a":{"$ref":"#/$defs/b"}}}]}`},
		// Too large to check in time: many nodes that each apply a
		// definition naming many properties, growing slowly.
		{"large and growing", largeGrowing(400)},
		// Compiling takes the cube of the nesting: 6s for this one.
		{"deep", strings.Repeat(`{"properties":{"a":`, 1000) + `{}` + strings.Repeat(`}}`, 1000)},
		{"deep arrays", `{"enum":[` + strings.Repeat(`[`, 101) + strings.Repeat(`]`, 101) + `]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile("mem:///s.json", []byte(tc.schema), Options{DefaultDraft: jsonschema.Draft2020})
			var se *Error
			if !errors.Is(err, ErrTooCostly) || !errors.As(err, &se) || se.Stage != StageCompile {
				t.Errorf("Compile = %v; want ErrTooCostly at StageCompile", err)
			}
		})
	}
}

// nestedTwice is n levels, each applying the next twice to its member a:
// not recursive, but 2^n applications on {a:{a:...}}.
func nestedTwice(n int) string {
	var defs []string
	for i := range n {
		defs = append(defs, fmt.Sprintf(`"l%d":{"properties":{"a":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]}}}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"l%d":{"type":"number"}`, n))
	return `{"$ref":"#/$defs/l0","$defs":{` + strings.Join(defs, ",") + `}}`
}

// largeGrowing is n defs that each apply one shared def of n properties
// and the "growing with depth" pattern.
func largeGrowing(n int) string {
	var props, defs, refs []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string"}`, i))
		defs = append(defs, fmt.Sprintf(`"d%d":{"allOf":[{"$ref":"#/$defs/wide"}],"properties":{"a":{"$ref":"#/$defs/b"}}}`, i))
		refs = append(refs, fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, i))
	}
	return `{"$defs":{"wide":{"properties":{` + strings.Join(props, ",") + `}},"b":{"properties":{"a":{"$ref":"#/$defs/b"}}},` + strings.Join(defs, ",") +
		`},"properties":{"a":{"$ref":"#"}},"anyOf":[` + strings.Join(refs, ",") + `]}`
}

func TestCompileKeepsLinearSchemas(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"tree", `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"$ref":"#/$defs/node"}`},
		{"linked list via additionalProperties", `{"type":"object","properties":{"next":{"$ref":"#"}},"additionalProperties":{"type":"string"}}`},
		{"wide", wide(2000)},
		{"anyOf of shared defs", `{"$defs":{"s":{"type":"string"},"n":{"type":"number"}},"type":"object","properties":{"v":{"anyOf":[{"$ref":"#/$defs/s"},{"$ref":"#/$defs/n"},{"type":"array","items":{"$ref":"#/properties/v"}}]}}}`},
		{"chain of 8", chain(8, "allOf")},
		{"dynamic ref", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$dynamicAnchor":"meta","type":"object","properties":{"sub":{"$dynamicRef":"#meta"}}}`},
		{"49 levels", strings.Repeat(`{"properties":{"a":`, 49) + `{}` + strings.Repeat(`}}`, 49)},
		{"brackets in strings", `{"description":"` + strings.Repeat(`{[`, 500) + `\"{"}`},
		{"strict profile", `{"type":"object","additionalProperties":false,"properties":{"l":{"type":"array","items":{"type":"object","additionalProperties":false,"properties":{"x":{"type":["number","null"]}},"required":["x"]}}},"required":["l"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Compile("mem:///s.json", []byte(tc.schema), Options{DefaultDraft: jsonschema.Draft2020}); err != nil {
				t.Errorf("Compile = %v", err)
			}
		})
	}
}

// wide is an object schema with n properties, each a $ref to one def.
func wide(n int) string {
	var props []string
	for i := range n {
		props = append(props, fmt.Sprintf(`"p%d":{"$ref":"#/$defs/d"}`, i))
	}
	return `{"type":"object","$defs":{"d":{"anyOf":[{"type":"string"},{"type":"object","properties":{"q":{"type":"string"}}}]}},"properties":{` + strings.Join(props, ",") + `}}`
}
