package command

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

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
	put := func(s string, v any, prefix string) error {
		bw.WriteString(s)
		buf.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return err
		}
		_, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		return err
	}
	if err := put("{\n  \"conflicts\": ", conflicts, "  "); err != nil {
		return err
	}
	if err := put(",\n  \"problems\": ", problems, "  "); err != nil {
		return err
	}
	bw.WriteString(",\n  \"tools\": [")
	// Describe is a function of the mode and the permissions: describe
	// each declaration once (every skill that declares none shares nil).
	sandboxes := map[*skill.Permissions]sandbox.Summary{}
	for i, t := range cat.Tools {
		sb, ok := sandboxes[t.Skill.Permissions]
		if !ok {
			sb = sandbox.Describe(mode, agent.Permissions(t.Skill.Permissions))
			sandboxes[t.Skill.Permissions] = sb
		}
		j := toolJSON{
			Tool: t.Name, Skill: t.Skill.Name, Description: t.Description,
			InputSchema: agent.InputSchema(t.InputSchema), Runtime: runtimeLabel(t.Tool),
			Entrypoint: t.Entrypoint, TimeoutSeconds: t.TimeoutSeconds,
			Source:  toolSourceJSON{File: t.SourceFile(), Format: string(t.Format), Scope: string(t.Skill.Scope), Root: t.Skill.Root},
			Sandbox: sb,
		}
		if len(t.OutputSchema) > 0 {
			j.OutputSchema = t.OutputSchema
		}
		sep := ",\n    "
		if i == 0 {
			sep = "\n    "
		}
		if err := put(sep, j, "    "); err != nil {
			return err
		}
	}
	if len(cat.Tools) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}
