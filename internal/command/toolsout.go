package command

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/skill"
)

// streamToolsJSON writes 'skillpm tools --json': the same bytes as
// writeJSON of {"conflicts", "problems", "tools"} (keys sorted, two-space
// indent), but one tool at a time, so a thousand tools never sit in memory
// as one compact document plus its indented copy.
func streamToolsJSON(w io.Writer, cat *agent.Catalog, mode sandbox.Mode) error {
	problems := []map[string]string{}
	for _, p := range cat.Problems {
		problems = append(problems, map[string]string{"dir": p.Dir, "error": p.Err.Error()})
	}
	conflicts := cat.Conflicts
	if conflicts == nil {
		conflicts = []agent.Conflict{}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	// One encoder for every value: it keeps its indent buffer, where
	// json.MarshalIndent allocates the compact and the indented copy anew
	// for each of a thousand tools. The same bytes: HTML escaped, and the
	// newline Encode adds is dropped.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	encode := func(v any, prefix string) ([]byte, error) {
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
	}
	put := func(s string, v any, prefix string) error {
		b, err := encode(v, prefix)
		if err != nil {
			return err
		}
		bw.WriteString(s)
		_, err = bw.Write(ciJSON(b))
		return err
	}
	if err := put("{\n  \"conflicts\": ", conflicts, "  "); err != nil {
		return err
	}
	if err := put(",\n  \"problems\": ", problems, "  "); err != nil {
		return err
	}
	bw.WriteString(",\n  \"tools\": [")
	// Each tool is written field by field (toolJSON's order and
	// omissions), its strings escaped as encoding/json does: indenting
	// a thousand encoded tools was most of the command's time. Describe
	// is a function of the mode and the permissions, and the indented
	// summary of one is the same bytes in every tool: each declaration
	// is described and encoded once (every skill that declares none
	// shares nil); so is each distinct schema.
	sandboxes := map[*skill.Permissions][]byte{}
	schemas := map[string][]byte{}
	var tool []byte
	for i, t := range cat.Tools {
		sb, ok := sandboxes[t.Skill.Permissions]
		if !ok {
			b, err := encode(sandbox.Describe(mode, agent.Permissions(t.Skill.Permissions)), "      ")
			if err != nil {
				return err
			}
			sb = bytes.Clone(b)
			sandboxes[t.Skill.Permissions] = sb
		}
		var err error
		if tool, err = appendToolJSON(tool[:0], t, sb, schemas); err != nil {
			return err
		}
		if i == 0 {
			bw.WriteString("\n    ")
		} else {
			bw.WriteString(",\n    ")
		}
		bw.Write(ciJSON(tool))
	}
	if len(cat.Tools) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// appendToolJSON appends the tool t as encoding/json writes its toolJSON
// at the depth of 'tools --json' (prefix four spaces, indent two), sb
// being its sandbox summary so written. schemas holds the indented bytes
// of the schemas written so far.
func appendToolJSON(b []byte, t agent.Tool, sb []byte, schemas map[string][]byte) ([]byte, error) {
	const field = ",\n      \""
	b = append(b, "{\n      \"tool\": "...)
	b = appendJSONString(b, t.Name)
	b = append(b, field+"skill\": "...)
	b = appendJSONString(b, t.Skill.Name)
	b = append(b, field+"description\": "...)
	b = appendJSONString(b, t.Description)
	b = append(b, field+"inputSchema\": "...)
	var err error
	if b, err = appendSchema(b, agent.InputSchema(t.InputSchema), schemas); err != nil {
		return nil, err
	}
	if len(t.OutputSchema) > 0 {
		b = append(b, field+"outputSchema\": "...)
		if b, err = appendSchema(b, t.OutputSchema, schemas); err != nil {
			return nil, err
		}
	}
	b = append(b, field+"runtime\": "...)
	b = appendJSONString(b, runtimeLabel(t.Tool))
	if t.Entrypoint != "" {
		b = append(b, field+"entrypoint\": "...)
		b = appendJSONString(b, t.Entrypoint)
	}
	if t.TimeoutSeconds != 0 {
		b = append(b, field+"timeoutSeconds\": "...)
		b = strconv.AppendInt(b, int64(t.TimeoutSeconds), 10)
	}
	b = append(b, field+"source\": {\n        \"file\": "...)
	b = appendJSONString(b, t.SourceFile())
	b = append(b, ",\n        \"format\": "...)
	b = appendJSONString(b, string(t.Format))
	b = append(b, ",\n        \"scope\": "...)
	b = appendJSONString(b, string(t.Skill.Scope))
	b = append(b, ",\n        \"root\": "...)
	b = appendJSONString(b, t.Skill.Root)
	b = append(b, "\n      }"+field+"sandbox\": "...)
	b = append(b, sb...)
	return append(b, "\n    }"...), nil
}

// appendSchema appends the JSON document raw as encoding/json writes a
// json.RawMessage field of a tool: compacted, HTML-escaped, indented.
func appendSchema(b []byte, raw json.RawMessage, schemas map[string][]byte) ([]byte, error) {
	if out, ok := schemas[string(raw)]; ok {
		return append(b, out...), nil
	}
	// Indent drops the spaces between tokens that Compact would, but
	// keeps trailing ones.
	src := bytes.TrimRight(raw, " \t\r\n")
	if bytes.ContainsAny(src, "<>&\u2028\u2029") {
		var escaped bytes.Buffer
		json.HTMLEscape(&escaped, src)
		src = escaped.Bytes()
	}
	var out bytes.Buffer
	if err := json.Indent(&out, src, "      ", "  "); err != nil {
		return nil, fmt.Errorf("json: error calling MarshalJSON for type json.RawMessage: %w", err)
	}
	schemas[string(raw)] = out.Bytes()
	return append(b, out.Bytes()...), nil
}

// appendJSONString appends s as encoding/json writes a string: quoted,
// with HTML characters, control characters, U+2028 and U+2029 escaped
// and invalid UTF-8 replaced. Plain printable ASCII, which is what names
// and paths are, is copied; anything else is encoding/json's own.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
