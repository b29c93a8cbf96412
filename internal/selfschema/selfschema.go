// Package selfschema compiles self-contained JSON Schemas: a tool's input
// or output schema, or one of skillpm's embedded format schemas. Every
// $ref to a resource outside the document is refused, so a schema can
// never make skillpm read files or the network, and a schema whose
// validation would not stay linear in the size of the instance, or that
// nests too deeply to compile quickly, is refused (ErrTooCostly). It is the one place both
// the linter (skill) and the tool runner (toolrun) compile schemas.
package selfschema

import (
	"bytes"
	"fmt"

	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// Stage says where Compile failed.
type Stage int

// Stages of Compile.
const (
	// StageParse: the schema is not valid JSON.
	StageParse Stage = iota + 1
	// StageAdd: the document could not be added as a resource.
	StageAdd
	// StageCompile: the schema is not a valid schema (or has an
	// external $ref, or is too costly to validate).
	StageCompile
)

// Error is a schema Compile could not compile. Its message is the
// underlying error's, which it wraps.
type Error struct {
	Stage Stage
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Options tune Compile.
type Options struct {
	// DefaultDraft applies to schemas without $schema; nil keeps the
	// compiler's default (the latest draft, 2020-12).
	DefaultDraft *jsonschema.Draft
	// RefusedRef makes the error for a $ref to url outside the schema;
	// nil says "$ref to URL is not allowed: schemas must be
	// self-contained".
	RefusedRef func(url string) error
}

// Compile parses raw and compiles it as the resource url (which names it
// in error messages). A $ref to any other resource fails the compile, and
// so does a schema that is too costly to validate (ErrTooCostly).
func Compile(url string, raw []byte, opts Options) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, &Error{Stage: StageParse, Err: err}
	}
	if d := depth(raw); d > MaxDepth {
		return nil, &Error{Stage: StageCompile, Err: fmt.Errorf("%w: it nests %d deep, over %d", ErrTooCostly, d, MaxDepth)}
	}
	c := jsonschema.NewCompiler()
	if opts.DefaultDraft != nil {
		c.DefaultDraft(opts.DefaultDraft)
	}
	c.UseLoader(noLoader{opts.RefusedRef})
	if err := c.AddResource(url, doc); err != nil {
		return nil, &Error{Stage: StageAdd, Err: err}
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, &Error{Stage: StageCompile, Err: err}
	}
	if err := checkCost(sch); err != nil {
		return nil, &Error{Stage: StageCompile, Err: err}
	}
	return sch, nil
}

// MaxDepth is how deeply a schema's JSON may nest. The compiler checks a
// schema against its metaschema in time that grows with the cube of the
// nesting (upstream issue #266): 1000 levels of properties, 20 KB, took
// 6 s, 4000 took minutes, and the tool runner compiles on every call.
// A hand-written schema nests a few dozen levels at most.
const MaxDepth = 100

// depth returns how deeply the JSON text raw nests arrays and objects.
func depth(raw []byte) int {
	d, most, inString := 0, 0, false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			d++
			most = max(most, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return most
}

// noLoader refuses every $ref to a resource outside the schema itself.
type noLoader struct{ refused func(string) error }

func (l noLoader) Load(url string) (any, error) {
	if l.refused != nil {
		return nil, l.refused(url)
	}
	return nil, fmt.Errorf("$ref to %s is not allowed: schemas must be self-contained", url)
}
