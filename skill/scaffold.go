package skill

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"text/template"
)

// ScaffoldOptions describe a new skill. The zero value, with a Dir, makes
// an instruction-only skill named after the folder.
type ScaffoldOptions struct {
	// Name defaults to the folder's base name, made valid.
	Name        string
	Description string
	// Version defaults to 0.1.0.
	Version string
	// Tool, when set, adds a tool declaration (Universal frontmatter) and
	// a handler script following the seeds' handler contract.
	Tool string
	// Runtime is python (default), node or bash.
	Runtime string
	// Format is the tool declaration's format: FormatUniversal (tools in
	// SKILL.md frontmatter) or FormatSkillTools (a tools.json beside
	// SKILL.md). Empty picks the Universal format unless Tool is a name
	// only the Skill Tools format allows (count_words: underscores).
	Format ToolFormat
	// Force allows writing into a folder that already has a SKILL.md.
	Force bool
}

// Scaffold writes a new skill into dir and returns the files it wrote,
// relative to dir. It writes nothing when it fails.
func Scaffold(dir string, opts ScaffoldOptions) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if opts.Name == "" {
		opts.Name = suggestName(filepath.Base(abs))
	}
	if !ValidName(opts.Name) {
		return nil, fmt.Errorf("init: %q is not a valid skill name: use 1-64 lowercase letters, digits and single hyphens (e.g. %q)", opts.Name, suggestName(opts.Name))
	}
	if opts.Version == "" {
		opts.Version = "0.1.0"
	}
	if opts.Description == "" {
		opts.Description = fmt.Sprintf("Describe what %s does and when an agent should use it.", opts.Name)
	}
	if opts.Runtime == "" {
		opts.Runtime = "python"
	}
	files := map[string]string{}
	var order []string
	add := func(name, content string) {
		files[name] = content
		order = append(order, name)
	}
	data := scaffoldData{ScaffoldOptions: opts, Description: yamlQuote(opts.Description)}
	if opts.Tool != "" {
		format, err := toolFormat(opts.Tool, opts.Format)
		if err != nil {
			return nil, err
		}
		ext, tmpl, ok := handlerTemplate(opts.Runtime, format)
		if !ok {
			return nil, fmt.Errorf("init: unknown runtime %q (want python, node or bash)", opts.Runtime)
		}
		data.Entrypoint = "scripts/" + strings.ReplaceAll(opts.Tool, "-", "_") + ext
		add(data.Entrypoint, render(tmpl, data))
		if format == FormatSkillTools {
			add(FileName, render(skillToolsSkillTmpl(), data))
			add(ToolsFileName, render(toolsJSONTmpl(), data))
		} else {
			add(FileName, render(universalSkillTmpl(), data))
		}
	} else {
		if opts.Format != "" && opts.Format != FormatUniversal && opts.Format != FormatSkillTools {
			return nil, fmt.Errorf("init: unknown format %q (want %s or %s)", opts.Format, FormatUniversal, FormatSkillTools)
		}
		add(FileName, render(plainSkillTmpl(), data))
	}
	if !opts.Force {
		var exist []string
		for _, name := range order {
			if _, err := os.Lstat(filepath.Join(abs, filepath.FromSlash(name))); err == nil {
				exist = append(exist, filepath.Join(dir, filepath.FromSlash(name)))
			}
		}
		if len(exist) > 0 {
			return nil, fmt.Errorf("init: %s already exists; use --force to overwrite", strings.Join(exist, " and "))
		}
	}
	return order, writeAll(abs, order, files, opts.Force)
}

// writeAll writes files under dir, removing what it created if any write
// fails.
func writeAll(dir string, order []string, files map[string]string, overwrite bool) (err error) {
	var created []string
	defer func() {
		if err != nil {
			for i := len(created) - 1; i >= 0; i-- {
				os.Remove(created[i])
			}
		}
	}()
	mkdir := func(d string) error {
		var missing []string
		for p := d; ; p = filepath.Dir(p) {
			if _, err := os.Stat(p); err == nil {
				break
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			missing = append(missing, p)
			if filepath.Dir(p) == p {
				break
			}
		}
		for i := len(missing) - 1; i >= 0; i-- {
			if err := os.Mkdir(missing[i], 0o755); err != nil {
				return err
			}
			created = append(created, missing[i])
		}
		return nil
	}
	for _, name := range order {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := mkdir(filepath.Dir(p)); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		mode := fs.FileMode(0o644)
		if strings.HasPrefix(name, "scripts/") {
			mode = 0o755
		}
		_, statErr := os.Lstat(p)
		// New files are created exclusively, never through a symlink;
		// only --force replaces what is there.
		flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
		if overwrite {
			if statErr == nil {
				if err := os.Remove(p); err != nil {
					return fmt.Errorf("init: %w", err)
				}
			}
		}
		f, err := os.OpenFile(p, flags, mode)
		if err != nil {
			return fmt.Errorf("init: %w", err)
		}
		_, werr := f.WriteString(files[name])
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if errors.Is(statErr, fs.ErrNotExist) || overwrite {
			created = append(created, p)
		}
		if werr != nil {
			return fmt.Errorf("init: %w", werr)
		}
	}
	return nil
}

type scaffoldData struct {
	ScaffoldOptions
	Description string // YAML-quoted
	Entrypoint  string
}

func render(t *template.Template, data scaffoldData) string {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		panic(err) // templates are fixed and tested
	}
	return b.String()
}

func yamlQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ").Replace(s) + `"`
}

// toolFormat picks the declaration format for a tool called name: the one
// asked for, which must allow the name, else the Universal format when
// its naming rule (lowercase, digits, hyphens) allows it, else Skill Tools
// (lowercase, digits, underscores).
func toolFormat(name string, asked ToolFormat) (ToolFormat, error) {
	universal := len(name) <= 64 && universalToolRE().MatchString(name)
	skillTools := skillToolNameRE().MatchString(name)
	switch asked {
	case "":
		if universal {
			return FormatUniversal, nil
		}
		if skillTools {
			return FormatSkillTools, nil
		}
		return "", fmt.Errorf("init: tool name %q fits neither format: use lowercase letters, digits and hyphens (e.g. %q) or, for the Skill Tools format, underscores (e.g. %q)",
			name, suggestName(name), strings.ReplaceAll(suggestName(name), "-", "_"))
	case FormatUniversal:
		if !universal {
			return "", fmt.Errorf("init: tool name %q must be 1-64 lowercase letters, digits and hyphens in the Universal format (e.g. %q); --format %s allows underscores", name, suggestName(name), FormatSkillTools)
		}
	case FormatSkillTools:
		if !skillTools {
			return "", fmt.Errorf("init: tool name %q must match ^[a-z][a-z0-9_]*$ in the Skill Tools format (e.g. %q)", name, strings.ReplaceAll(suggestName(name), "-", "_"))
		}
	default:
		return "", fmt.Errorf("init: unknown format %q (want %s or %s)", asked, FormatUniversal, FormatSkillTools)
	}
	return asked, nil
}

func handlerTemplate(runtime string, format ToolFormat) (string, *template.Template, bool) {
	switch runtime {
	case "python":
		return ".py", pythonHandlerTmpl(), true
	case "node":
		if format == FormatSkillTools {
			// The Skill Tools spec's reference convention: a .js ESM
			// module with a default export.
			return ".js", nodeHandlerTmpl(), true
		}
		return ".mjs", nodeHandlerTmpl(), true
	case "bash":
		return ".sh", bashHandlerTmpl(), true
	}
	return "", nil, false
}

var plainSkillTmpl = tmpl("SKILL.md", `---
name: {{.Name}}
description: {{.Description}}
version: {{.Version}}
---

# {{.Name}}

## When to use

Describe the tasks and phrases that should make an agent load this skill.

## Instructions

1. Step-by-step instructions for the agent.
2. Example inputs and outputs.
3. Edge cases and how to handle errors.
`)

var universalSkillTmpl = tmpl("SKILL.md", `---
spec_version: "2.1"
name: {{.Name}}
description: {{.Description}}
version: {{.Version}}
permissions:
  filesystem:
    read: []
    write: []
  network:
    outbound: []
  processes:
    allow_subprocess: false
safety:
  require_confirmation_for: [destructive_writes, external_network]
  redact:
    secrets: true
    pii: true
tools:
  - name: {{.Tool}}
    description: Echo the given text back. Replace with what the tool really does.
    input_schema:
      type: object
      additionalProperties: false
      properties:
        text:
          type: string
          description: The text to process.
      required: [text]
    output_schema:
      type: object
      additionalProperties: false
      properties:
        result:
          type: string
      required: [result]
    implementation:
      runtime: {{.Runtime}}
      entrypoint: {{.Entrypoint}}
{{- if eq .Runtime "python"}}
      handler: handler
{{- end}}
      timeout_seconds: 30
---

# {{.Name}}

## When to use

Describe the tasks and phrases that should make an agent load this skill.

## Tools

- `+"`{{.Tool}}`"+`: takes `+"`text`"+` and returns `+"`{\"result\": ...}`"+`. Run it with
  `+"`skillpm run {{.Tool}} text=hello`"+`.
`)

var skillToolsSkillTmpl = tmpl("SKILL.md", `---
name: {{.Name}}
description: {{.Description}}
version: {{.Version}}
---

# {{.Name}}

## When to use

Describe the tasks and phrases that should make an agent load this skill.

## Tools

- `+"`{{.Tool}}`"+` (declared in tools.json): takes `+"`text`"+` and returns
  `+"`{\"result\": ...}`"+`. Run it with `+"`skillpm run {{.Tool}} text=hello`"+`.
`)

var toolsJSONTmpl = tmpl("tools.json", `[
  {
    "name": "{{.Tool}}",
    "description": "Echo the given text back. Replace with what the tool really does.",
    "script": "{{.Entrypoint}}",
    "parameters": {
      "text": {
        "type": "string",
        "description": "The text to process."
      }
    }
  }
]
`)

var pythonHandlerTmpl = tmpl("py", `"""Handler for the {{.Tool}} tool of the {{.Name}} skill.

skillpm (and other Skill Tools runtimes) call handler(args) with the tool's
arguments plus __workDir, the agent's working directory.
"""
import json
import sys


def handler(args):
    work_dir = args.get("__workDir")
    text = args.get("text", "")
    return {"result": text}


if __name__ == "__main__":
    args = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.load(sys.stdin)
    print(json.dumps(handler(args)))
`)

var nodeHandlerTmpl = tmpl("mjs", `// Handler for the {{.Tool}} tool of the {{.Name}} skill.
//
// skillpm (and other Skill Tools runtimes) import this module and call its
// default export with the tool's arguments plus __workDir.
export default async function handler(args) {
  const { __workDir: workDir, text = "" } = args;
  return { result: text };
}
`)

var bashHandlerTmpl = tmpl("sh", `#!/usr/bin/env bash
# Handler for the {{.Tool}} tool of the {{.Name}} skill.
#
# The tool's arguments arrive as one JSON object on stdin (with __workDir);
# the result is the JSON written to stdout.
set -euo pipefail
args=$(cat)
printf '{"result": "received %d bytes of input"}\n' "${#args}"
`)

// tmpl parses text as the template name when first used: scaffolding is
// rare, and a template parsed at package initialisation would cost every
// command's start.
func tmpl(name, text string) func() *template.Template {
	return sync.OnceValue(func() *template.Template { return template.Must(template.New(name).Parse(text)) })
}
