package toolrun

import (
	"crypto/sha256"
	"fmt"
	"sync"

	"github.com/skillpm/skillpm/internal/selfschema"
	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
)

// Compiled tool schemas, by their bytes: a long-running server (mcp)
// would otherwise compile a tool's schemas again on every call, which for
// a large schema costs more than the run. Entries are kept until they
// hold maxCompiledBytes of schema source, or maxCompiled schemas; then
// the cache starts over.
var compiled struct {
	sync.Mutex
	m     map[compiledKey]compiledSchema
	bytes int
}

const (
	maxCompiled      = 256
	maxCompiledBytes = 16 << 20
)

type compiledKey struct {
	url string // schemaURL or outputSchemaURL
	sum [sha256.Size]byte
}

type compiledSchema struct {
	sch *jsonschema.Schema
	err error // a schema that does not compile stays refused
}

// compileSchema compiles a tool's input or output schema (url names
// which, what says it in messages), 2020-12 unless it says otherwise,
// refusing external $refs, or returns the one compiled from the same
// bytes before. A compiled schema is safe to validate concurrently.
func compileSchema(url, what string, schema []byte) (*jsonschema.Schema, error) {
	k := compiledKey{url, sha256.Sum256(schema)}
	compiled.Lock()
	c, ok := compiled.m[k]
	compiled.Unlock()
	if ok {
		return c.sch, c.err
	}
	sch, err := selfschema.Compile(url, schema, selfschema.Options{
		DefaultDraft: jsonschema.Draft2020,
		RefusedRef: func(ref string) error {
			return fmt.Errorf("external $ref %s not allowed in a tool %s schema", ref, what)
		},
	})
	compiled.Lock()
	if compiled.m == nil || len(compiled.m) >= maxCompiled || compiled.bytes+len(schema) > maxCompiledBytes {
		compiled.m, compiled.bytes = make(map[compiledKey]compiledSchema), 0
	}
	compiled.m[k] = compiledSchema{sch, err}
	compiled.bytes += len(schema)
	compiled.Unlock()
	return sch, err
}
