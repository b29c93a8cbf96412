// Package conformance lists the requirements of the five formats skillpm
// speaks (the seeds: Agent Skills, Skill Tools, Universal Agent Skill, the
// Skill tool contract and the skills-as-tools proposal): every MUST, SHOULD
// and contract item, each with a stable ID. The tests that prove them are
// named in this package's proofs_test.go; TestConformanceDoc renders both
// into docs/conformance.md (go generate), checks that every test it names
// exists, and fails when the committed table is out of date.
package conformance

//go:generate go test -run TestConformanceDoc -update .

// Level is how binding a requirement is.
type Level string

// Levels.
const (
	Must     Level = "MUST"
	Should   Level = "SHOULD"
	Contract Level = "contract" // an interface or output the seed fixes
)

// Requirement is one requirement of a seed.
type Requirement struct {
	ID      string
	Seed    string // the seed file
	Section string // where in the seed
	Level   Level
	Text    string
	// NotApplicable says why skillpm has nothing to prove, when that is
	// the case; empty otherwise.
	NotApplicable string
}

// Seeds are the seed files, in the order the table shows them.
var Seeds = []string{
	"agent-skills-spec.md",
	"skill-tools-spec.md",
	"universal-agent-skill-spec.md",
	"skill-tool-contract.md",
	"skills-as-tools-proposal.md",
}

const (
	as = "agent-skills-spec.md"
	st = "skill-tools-spec.md"
	un = "universal-agent-skill-spec.md"
	ct = "skill-tool-contract.md"
	pr = "skills-as-tools-proposal.md"
)

// Requirements returns every requirement, seed by seed.
func Requirements() []Requirement { return append([]Requirement(nil), requirements...) }

var requirements = []Requirement{
	// Agent Skills.
	{"AS-1-skill-md", as, "§1", Must, "A skill is a directory with a required SKILL.md at its root.", ""},
	{"AS-2.1-name", as, "§2.1", Must, "name is required: 1-64 characters, lowercase letters, numbers and hyphens.", ""},
	{"AS-2.1-name-dir", as, "§2.1", Must, "name must match the parent directory name.", ""},
	{"AS-2.1-description", as, "§2.1", Must, "description is required: 1-1024 characters.", ""},
	{"AS-2.1-allowed-tools", as, "§2.1", Contract, "allowed-tools is a list of pre-approved tools (experimental).", ""},
	{"AS-3.2-relative-refs", as, "§3.2", Contract, "Bundled files are referenced by paths relative to the skill root.", ""},
	{"AS-4-metadata-first", as, "§4", Contract, "Indexing loads only name and description of every skill into the system prompt; the full SKILL.md is read on activation.", ""},
	{"AS-5.3-available-skills", as, "§5.1, §5.3", Should, "Metadata is given to the model as <available_skills> with name, description and the absolute location of SKILL.md.", ""},
	{"AS-6-sandbox", as, "§6", Should, "Scripts should be executed in isolated environments.", ""},
	{"AS-6-confirmation", as, "§6", Should, "High-risk operations should require user approval.", ""},
	{"AS-6-audit", as, "§6", Should, "Skill activations and script executions should be logged.", ""},

	// Skill Tools.
	{"ST-4-dir-name", st, "§4", Must, "The skill directory name follows the naming rules (no consecutive hyphens, no leading or trailing hyphen) and matches name.", ""},
	{"ST-4-tools-json-root", st, "§4", Must, "tools.json is at the root of the skill directory.", ""},
	{"ST-5-json-array", st, "§5", Must, "The manifest is valid JSON and an array.", ""},
	{"ST-5-name-description", st, "§5", Must, "Each tool has a name and a description.", ""},
	{"ST-5-name-format", st, "§5", Must, "Tool names match ^[a-z][a-z0-9_]*$.", ""},
	{"ST-5-unique", st, "§5", Must, "Tool names are unique within a manifest.", ""},
	{"ST-5-last-loaded-wins", st, "§5", Should, "Tool names should be unique across skills; on conflict the last-loaded skill's tool wins.", ""},
	{"ST-5-stub", st, "§5", Should, "A tool without script gets a stub telling the agent to load the skill.", ""},
	{"ST-5-parameters", st, "§5", Contract, "Parameters are JSON Schema properties; those without optional: true are required.", ""},
	{"ST-6-input", st, "§6", Must, "A handler receives one JSON object with the parameters plus __workDir.", ""},
	{"ST-6-errors", st, "§6", Should, "A failing handler's error is caught and returned as a structured error.", ""},
	{"ST-6-js", st, "§6", Contract, "JavaScript handlers are ESM modules whose default export is called with the arguments.", ""},
	{"ST-6-python", st, "§6", Contract, "Python handlers define handler(args); args arrive as argv[1] or stdin JSON, the result on stdout.", ""},
	{"ST-6-secrets-env", st, "§6", Should, "Handlers read secrets from environment variables, which the runtime provides.", ""},
	{"ST-6-secrets-not-stored", st, "§6", Must, "Secrets are not stored in the skill directory or committed.", ""},
	{"ST-7-skip-invalid-tool", st, "§7", Must, "Registration skips a tool without name or description, with a warning.", ""},
	{"ST-7-precedence", st, "§7", Contract, "Skill directories skills/, .opencode/skills/, .claude/skills/, .agents/skills/: later directories override earlier ones.", ""},
	{"ST-8-define-tool", st, "§8", Contract, "define_tool / remove_tool create and remove tools at run time.", "optional (MAY); skillpm is a package manager and runner, not an agent that writes tools during a session"},
	{"ST-11-sandbox", st, "§11", Should, "Handlers run sandboxed, with least privilege, logged.", ""},

	// Universal Agent Skill.
	{"UN-1-layout", un, "§1", Must, "SKILL.md is at the skill root.", ""},
	{"UN-1-relative-paths", un, "§1", Must, "Paths a skill references are relative to the skill folder; no absolute paths.", ""},
	{"UN-2-frontmatter", un, "§2", Must, "SKILL.md begins with YAML frontmatter delimited by ---, parsing into one mapping.", ""},
	{"UN-3-required-fields", un, "§3", Must, "Frontmatter includes spec_version, name, description and version (semver).", ""},
	{"UN-3-name", un, "§3", Must, "name is 1-64 characters of ^[a-z0-9-]+$, without XML tags or host-reserved words.", ""},
	{"UN-3-description", un, "§3", Must, "description is non-empty, at most 1024 characters, without XML tags.", ""},
	{"UN-3-reserved-hosts", un, "§3", Should, "Host identifiers are claude-api, claude-code, mcp, openai-responses, codex-cli.", ""},
	{"UN-4-tools", un, "§4", Must, "Tools are declared under tools; tool names meet the name constraints.", ""},
	{"UN-5-runtime", un, "§5", Must, "implementation.runtime is python, node or bash, and the entrypoint's extension fits it.", ""},
	{"UN-5-bash-json", un, "§5", Must, "A bash entrypoint reads JSON on stdin and writes JSON on stdout (adapter enforces).", ""},
	{"UN-5-dependencies", un, "§5", Must, "A host that installs dependencies does not weaken sandboxing or approvals.", "skillpm never installs implementation.dependencies"},
	{"UN-6-source-priority", un, "§6", Must, "Frontmatter tools win over tools.json; a disagreeing tools.json is stale.", ""},
	{"UN-6-tools-json-format", un, "§6", Must, "A tools.json is an array of canonical tool objects (Appendix B).", ""},
	{"UN-6-mcp-mapping", un, "§6", Must, "Tools exposed through MCP map input_schema to inputSchema.", ""},
	{"UN-7-json-schema", un, "§7", Must, "input_schema and output_schema are valid JSON Schema 2020-12; input_schema has type: object.", ""},
	{"UN-7-additional-properties", un, "§7", Should, "Object schemas set additionalProperties: false.", ""},
	{"UN-7-strict", un, "§7", Must, "Tools mapped to OpenAI strict mode have additionalProperties: false on every object schema.", ""},
	{"UN-8-default-deny", un, "§8", Must, "Adapters enforce a default-deny posture for permissions.", ""},
	{"UN-8-globs", un, "§8", Must, "Permission globs are root-relative with / separators, Windows \\ normalised, * within and ** across segments, no negation.", ""},
	{"UN-8-safety", un, "§8", Must, "A skill has the safety block (require_confirmation_for, redact) as a minimum.", ""},
	{"UN-8-secrets-redact", un, "§8", Must, "Hosts redact secrets from logs and tool outputs by default.", ""},
	{"UN-8-secrets-scope", un, "§8", Should, "Secrets are passed only to the tool process that needs them.", ""},
	{"UN-9-results", un, "§9", Must, "Tool results are a JSON object on success and a structured error envelope on failure.", ""},
	{"UN-9-cancellation", un, "§9", Must, "The host's cancellation becomes a stop signal for the tool.", ""},
	{"UN-10-manual-override", un, "§10", Must, "A skill or tool the user names is selected.", ""},
	{"UN-10-scoring", un, "§10", Must, "Skills score +3 per file_type, +2 per mention (case-insensitive), +1 per intent match.", ""},
	{"UN-10-threshold", un, "§10", Must, "Skills with score >= threshold (default 3) are selected.", ""},
	{"UN-10-tie-break", un, "§10", Must, "Ties break by higher score, higher when_to_use.priority, then name.", ""},
	{"UN-10-metadata", un, "§10", Must, "Hosts load name and description for discovery.", ""},
	{"UN-10-body-on-demand", un, "§10", Should, "Hosts load the body only when a skill is selected.", ""},
	{"UN-host-overrides", un, "§2, §3", Must, "Host-specific behaviour lives under host_overrides and is applied for that host.", ""},
	{"UN-claude-api-size", un, "Host Profile: Claude API", Must, "A skill targeting the Claude API is at most 8 MB in all.", ""},
	{"UN-appendix-a", un, "Appendix A", Should, "Frontmatter validates against the Appendix A schema.", ""},
	{"UN-smoke-tests", un, "Validation", Should, "Smoke tests declared in evaluation.smoke_tests are run.", ""},

	// Skill tool contract.
	{"CT-skill-tool", ct, "Tool Registration", Contract, "A Skill tool takes skill_name and returns the skill's content.", "skillpm serves the same operation as load_skill (skills-as-tools proposal); it has no tool named Skill"},
	{"CT-success", ct, "Output Contract", Contract, "Success is 'Skill: {name} (Type: personal|project)', 'Path: {path}', then the SKILL.md content.", ""},
	{"CT-not-found", ct, "Error Response Contract", Contract, "An unknown skill gets 'Skill '{name}' not found.' with the available skills and how to create it.", ""},
	{"CT-invalid", ct, "Error Response Contract", Contract, "An invalid skill gets 'Skill '{name}' is invalid: ...' with 'Fix by:' items.", ""},
	{"CT-validation", ct, "SKILL.md Contract", Must, "Frontmatter is valid YAML; name matches the directory; name is lowercase letters, numbers, hyphens; description 1-1024.", ""},
	{"CT-supporting-files", ct, "Supporting Files Contract", Must, "Supporting files and relative paths stay within the skill directory.", ""},
	{"CT-personal-project", ct, "Directory Structure Contract", Contract, "Skills come from personal (user) and project directories; the project overrides.", ""},
	{"CT-performance", ct, "Performance Contract", Contract, "Discovery < 500ms, loading < 100ms, description generation < 50ms.", ""},

	// Skills-as-tools proposal.
	{"PR-load-skill", pr, "load_skill", Contract, "load_skill returns the SKILL.md body without frontmatter.", ""},
	{"PR-use-skill", pr, "use_skill", Contract, "use_skill runs a script with string arguments and returns {success, stdout, stderr, exitCode, error}.", ""},
	{"PR-system-prompt", pr, "System Prompt Injection", Contract, "The '## Available Skills' section lists each skill with its description.", ""},
	{"PR-include-exclude", pr, "createSkillsProvider", Contract, "include and exclude options choose which skills load.", ""},
	{"PR-max-output", pr, "Security Model 4", Contract, "stdout and stderr are capped (20 KB default, configurable) with '[output truncated]'.", ""},
	{"PR-timeout", pr, "Security Model 3", Contract, "A configurable timeout kills runaway scripts.", ""},
	{"PR-containment", pr, "Security Model 1", Contract, "Scripts must exist inside the skill folder: no traversal, no absolute paths.", ""},
	{"PR-no-shell", pr, "Security Model 2", Contract, "Arguments are passed as an array, never through a shell.", ""},
	{"PR-structured-errors", pr, "Security Model 5", Contract, "Failures are typed: SkillNotFound, ScriptNotFound, ScriptNotAllowed, ExecutionTimeout, ExecutionFailed.", ""},
}
