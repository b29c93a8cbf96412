// Package agenttest lays out skills on disk for the tests of package agent
// and the packages built on it.
package agenttest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFiles creates files (path relative to root -> content) under root.
// A path ending in .sh is made executable.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o755
		}
		if err := os.WriteFile(full, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
	}
}

// SkillMD returns a SKILL.md with the given name, description and extra
// frontmatter lines.
func SkillMD(name, desc, extra string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n" + extra + "---\n\n# " + name + "\n\nUse it well.\n"
}

// ToolFM returns frontmatter declaring one bash tool with an entrypoint.
func ToolFM(tool, entry string) string {
	return "tools:\n  - name: " + tool + "\n    description: " + tool + " tool\n    input_schema:\n      type: object\n      additionalProperties: false\n      properties:\n        text: { type: string }\n      required: [text]\n    implementation:\n      runtime: bash\n      entrypoint: " + entry + "\n"
}

// Fixture lays out a home and a project with overlapping skills:
//
//	~/.claude/skills/shared      (user; shadowed by the project's)
//	~/.claude/skills/mine        (user)
//	skills/shared                (project, shadowed by .claude/skills)
//	.claude/skills/shared        (project; wins "shared")
//	.claude/skills/alpha         declares tool "fmt" and "a_only"
//	.claude/skills/zeta          declares tool "fmt"       (same folder, later name)
//	.agents/skills/omega         declares tool "fmt"       (later folder: wins)
//	.agents/skills/broken        unreadable SKILL.md
func Fixture(t testing.TB) (home, project string) {
	home, project = t.TempDir(), t.TempDir()
	WriteFiles(t, home, map[string]string{
		".claude/skills/shared/SKILL.md": SkillMD("shared", "user copy", ""),
		".claude/skills/mine/SKILL.md":   SkillMD("mine", "a personal skill", ""),
	})
	WriteFiles(t, project, map[string]string{
		"skills/shared/SKILL.md":         SkillMD("shared", "plain copy", ""),
		".claude/skills/shared/SKILL.md": SkillMD("shared", "project copy", ""),
		".claude/skills/alpha/SKILL.md":  SkillMD("alpha", "alpha skill", ToolFM("fmt", "fmt.sh")+"  - name: a_only\n    description: only alpha\n    implementation:\n      runtime: bash\n      entrypoint: a.sh\n"),
		".claude/skills/alpha/fmt.sh":    "#!/bin/bash\necho '{\"by\":\"alpha\"}'\n",
		".claude/skills/zeta/SKILL.md":   SkillMD("zeta", "zeta skill", ToolFM("fmt", "fmt.sh")),
		".claude/skills/zeta/fmt.sh":     "#!/bin/bash\necho '{\"by\":\"zeta\"}'\n",
		".agents/skills/omega/SKILL.md":  SkillMD("omega", "omega skill", ToolFM("fmt", "fmt.sh")+"secrets:\n  required:\n    - name: OMEGA_TOKEN\n      usage: env\n"),
		".agents/skills/omega/fmt.sh":    "#!/bin/bash\nin=$(cat)\necho \"{\\\"by\\\":\\\"omega\\\",\\\"token\\\":\\\"$OMEGA_TOKEN\\\",\\\"in\\\":$in}\"\n",
		".agents/skills/broken/SKILL.md": "no frontmatter here\n",
	})
	return home, project
}

// GatedProject is a project with a skill with a gated tool (wipe: destructive_writes), a
// read-only tool (peek), a network tool (fetch, gated by the skill's
// external_network) and a script gated by the skill's destructive_writes.
func GatedProject(t testing.TB) string {
	t.Helper()
	project := t.TempDir()
	WriteFiles(t, project, map[string]string{
		".claude/skills/cleaner/SKILL.md": `---
spec_version: "2.1"
name: cleaner
description: Deletes generated output.
version: 1.0.0
permissions:
  filesystem: {write: ["output/**"]}
  network: {outbound: []}
  processes: {allow_subprocess: false}
safety:
  require_confirmation_for: [destructive_writes]
tools:
  - name: wipe
    description: Delete generated output files.
    confirmation: {level: destructive_writes, prompt: "This will delete files under output/**."}
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/wipe.sh}
  - name: tidy
    description: Tidy output; asks because the skill writes.
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/wipe.sh}
  - name: count
    description: Count files; never asks.
    confirmation: {level: never}
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/wipe.sh}
---
Cleaner.
`,
		".claude/skills/cleaner/scripts/wipe.sh": "#!/bin/bash\ntouch \"$PWD/ran-$$\"\necho '{\"wiped\":true}'\n",
		".claude/skills/reader/SKILL.md": `---
spec_version: "2.1"
name: reader
description: Reads only.
version: 1.0.0
permissions:
  filesystem: {read: ["**/*.txt"]}
  network: {outbound: []}
tools:
  - name: peek
    description: Read.
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/peek.sh}
---
Reader.
`,
		".claude/skills/reader/scripts/peek.sh": "#!/bin/bash\necho '{}'\n",
		".claude/skills/web/SKILL.md": `---
spec_version: "2.1"
name: web
description: Reaches a host.
version: 1.0.0
permissions:
  network: {outbound: ["api.example.com"]}
safety:
  require_confirmation_for: [external_network]
tools:
  - name: fetch
    description: Fetch.
    input_schema: {type: object}
    implementation: {runtime: bash, entrypoint: scripts/peek.sh}
---
Web.
`,
		".claude/skills/web/scripts/peek.sh": "#!/bin/bash\necho '{}'\n",
	})
	return project
}
