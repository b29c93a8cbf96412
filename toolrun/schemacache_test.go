package toolrun

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/internal/selfschema"
	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

func TestCompileSchemaRemembers(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{"n":{"type":"integer"}}}`)
	a, err := compileSchema(schemaURL, "input", schema)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := compileSchema(schemaURL, "input", append([]byte(nil), schema...))
	if a != b {
		t.Error("the same input schema was compiled twice")
	}
	if c, _ := compileSchema(outputSchemaURL, "output", schema); c == a {
		t.Error("an output schema shares the input schema's entry")
	}
	other := []byte(`{"type":"object","properties":{"n":{"type":"string"}}}`)
	if d, _ := compileSchema(schemaURL, "input", other); d == a {
		t.Error("two schemas share an entry")
	}
	// A schema that does not compile stays refused, with the same reason.
	bad := []byte(`{"$ref":"https://example.com/s.json"}`)
	_, err1 := compileSchema(schemaURL, "input", bad)
	_, err2 := compileSchema(schemaURL, "input", bad)
	if err1 == nil || err2 == nil || err1.Error() != err2.Error() || !strings.Contains(err1.Error(), "not allowed in a tool input schema") {
		t.Errorf("bad schema: %v, then %v; want the same refusal", err1, err2)
	}
	// And the remembered schema still validates.
	if e := validateInput(schema, map[string]any{"n": "x"}); e == nil || e.Kind != InvalidInput {
		t.Errorf("validateInput = %v; want InvalidInput", e)
	}
}

// BenchmarkValidateInput is one call's schema check in a long-running
// server: with the compiled schema remembered, and compiled for the call
// as before.
func BenchmarkValidateInput(b *testing.B) {
	var props []string
	for i := range 60 {
		props = append(props, fmt.Sprintf(`"p%d":{"type":"string","pattern":"^[a-z]+[0-9]*$","maxLength":64}`, i))
	}
	schema := json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{` + strings.Join(props, ",") + `}}`)
	args := map[string]any{"p1": "abc1", "p2": "def"}
	b.Run("remembered", func(b *testing.B) {
		for b.Loop() {
			if e := validateInput(schema, args); e != nil {
				b.Fatal(e)
			}
		}
	})
	b.Run("compiled per call", func(b *testing.B) {
		for b.Loop() {
			sch, err := selfschema.Compile(schemaURL, schema, selfschema.Options{DefaultDraft: jsonschema.Draft2020})
			if err != nil {
				b.Fatal(err)
			}
			if err := sch.Validate(any(args)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The cache stays within its bounds: a schema over maxCachedSchema is
// compiled for its call only, and the entries and source bytes kept
// never pass maxCompiled and maxCompiledBytes.
func TestCompileSchemaBounded(t *testing.T) {
	big := []byte(`{"type":"object","description":"` + strings.Repeat("x", maxCachedSchema) + `"}`)
	a, err := compileSchema(schemaURL, "input", big)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := compileSchema(schemaURL, "input", big); a == b {
		t.Error("a schema over maxCachedSchema was remembered")
	}
	pad := strings.Repeat("y", maxCompiledBytes/maxCompiled)
	for i := range maxCompiled + 10 {
		s := []byte(fmt.Sprintf(`{"type":"object","description":%q,"maxProperties":%d}`, pad, i))
		if _, err := compileSchema(schemaURL, "input", s); err != nil {
			t.Fatal(err)
		}
		compiled.Lock()
		n, size := len(compiled.m), compiled.bytes
		compiled.Unlock()
		if n > maxCompiled || size > maxCompiledBytes {
			t.Fatalf("after %d schemas the cache holds %d entries and %d bytes; bounds %d and %d", i+1, n, size, maxCompiled, maxCompiledBytes)
		}
	}
}
