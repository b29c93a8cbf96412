package skill

import (
	"embed"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/skillpm/skillpm/internal/selfschema"
	"github.com/skillpm/skillpm/internal/third_party/jsonschema"
	"github.com/skillpm/skillpm/internal/third_party/jsonschema/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// The Universal spec's Appendix A (frontmatter) and Appendix B (tools.json)
// schemas. Two deliberate changes from the seed copy: the seed's doubled
// backslashes in patterns are undone, and the Agent Skills fields (license,
// compatibility, metadata, allowed-tools) plus the mapping form of
// depends_on are allowed, since Universal skills are Agent Skills too.
//
//go:embed schemas/*.json
var schemaFS embed.FS

func compileEmbedded(name string) (*jsonschema.Schema, error) {
	data, err := schemaFS.ReadFile("schemas/" + name)
	if err != nil {
		return nil, err
	}
	return selfschema.Compile("skillpm:///"+name, data, selfschema.Options{})
}

// CompileSchema compiles a tool's JSON Schema (draft 2020-12 unless the
// schema says otherwise). External $refs are refused.
func CompileSchema(raw json.RawMessage) (*jsonschema.Schema, error) {
	return selfschema.Compile("skillpm:///tool-schema.json", raw, selfschema.Options{DefaultDraft: jsonschema.Draft2020})
}

var printer = sync.OnceValue(func() *message.Printer { return message.NewPrinter(language.English) })

// schemaProblem is one leaf validation failure.
type schemaProblem struct {
	path []string // instance location
	msg  string
}

// schemaProblems flattens a validation error into its leaf causes, sorted
// by location for stable output.
func schemaProblems(err error) []schemaProblem {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []schemaProblem{{msg: err.Error()}}
	}
	var out []schemaProblem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			// The validator lists additional properties in map order: report
			// each on its own, at its own key, so output is stable.
			if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok && len(ap.Properties) > 0 {
				for _, name := range ap.Properties {
					one := &kind.AdditionalProperties{Properties: []string{name}}
					out = append(out, schemaProblem{path: append(append([]string{}, e.InstanceLocation...), name), msg: one.LocalizedString(printer())})
				}
				return
			}
			out = append(out, schemaProblem{path: e.InstanceLocation, msg: e.ErrorKind.LocalizedString(printer())})
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := strings.Join(out[i].path, "/"), strings.Join(out[j].path, "/")
		if pi != pj {
			return pi < pj
		}
		return out[i].msg < out[j].msg
	})
	return out
}

// locationString renders an instance location as a readable path:
// tools[0].input_schema.type.
func locationString(path []string) string {
	var b strings.Builder
	for _, p := range path {
		if _, err := strconv.Atoi(p); err == nil {
			b.WriteString("[" + p + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	if b.Len() == 0 {
		return "frontmatter"
	}
	return b.String()
}
