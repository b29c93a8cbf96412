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
// the cache starts over. A compiled schema holds about 35 bytes for each
// byte of its source (60-property schemas with patterns: 844 KB of
// source held 29 MB), so the source bound is what bounds memory, at
// about 140 MB; a schema over maxCachedSchema is compiled for its call
// only.
var compiled struct {
	sync.Mutex
	m     map[compiledKey]compiledSchema
	bytes int
}

const (
	maxCompiled      = 1024 // 512 tools with input and output schemas
	maxCompiledBytes = 4 << 20
	maxCachedSchema  = 1 << 20
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
	if len(schema) > maxCachedSchema {
		return sch, err
	}
	compiled.Lock()
	if compiled.m == nil || len(compiled.m) >= maxCompiled || compiled.bytes+len(schema) > maxCompiledBytes {
		compiled.m, compiled.bytes = make(map[compiledKey]compiledSchema), 0
	}
	compiled.m[k] = compiledSchema{sch, err}
	compiled.bytes += len(schema)
	compiled.Unlock()
	return sch, err
}
