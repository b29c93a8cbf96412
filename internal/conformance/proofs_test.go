package conformance

// proofs names, per requirement ID, the tests that prove it: a Go test as
// "PKGDIR.TestName" (PKGDIR relative to the module root; a subtest may
// follow after "/"), or an e2e script as "e2e:NAME.txtar". Only the
// top-level test function or script is checked to exist, so keep subtest
// names as the code spells them. A requirement missing here is shown in
// docs/conformance.md as having no test.
var proofs = map[string][]string{
	// Agent Skills.
	"AS-1-skill-md":           {"skill.TestLoadNotASkill", "skill.TestLoadSpecialFiles", "skill.TestCorpusInvalid"},
	"AS-2.1-name":             {"skill.TestLintFrontmatterRules/name-format-upper", "skill.TestLintFrontmatterRules/name-length", "skill.TestValidName"},
	"AS-2.1-name-dir":         {"skill.TestLintFrontmatterRules/name-mismatch", "agent.TestBuildScreensSkills", "e2e:select.txtar"},
	"AS-2.1-description":      {"skill.TestLintFrontmatterRules/description-missing", "skill.TestLintFrontmatterRules/description-length-runes", "agent.TestBuildScreensSkills", "e2e:prompt.txtar"},
	"AS-2.1-allowed-tools":    {"skill.TestLintFrontmatterRules/allowed-tools-list"},
	"AS-3.2-relative-refs":    {"skill.TestLintLinks", "skill.TestLintSymlinkEscapes"},
	"AS-4-metadata-first":     {"agent.TestBuildUsesIndex", "agent.TestMetadataBudget", "agent.TestLoadSkill"},
	"AS-5.3-available-skills": {"agent.TestPrompts", "e2e:prompt.txtar"},

	// Skill Tools.
	"ST-4-dir-name":          {"skill.TestLintFrontmatterRules/name-format-trailing-hyphen", "skill.TestLintFrontmatterRules/name-mismatch"},
	"ST-4-tools-json-root":   {"skill.TestToolSourcePriority", "skill.TestLintToolsJSONSpecial"},
	"ST-5-json-array":        {"skill.TestLintSkillToolsRules", "skill.TestCorpusInvalid"},
	"ST-5-name-description":  {"skill.TestLintSkillToolsRules"},
	"ST-5-name-format":       {"skill.TestLintSkillToolsRules"},
	"ST-5-unique":            {"skill.TestLintSkillToolsRules", "skill.TestLintUniversalToolRules/tool-name-duplicate"},
	"ST-5-last-loaded-wins":  {"agent.TestBuildConflicts"},
	"ST-5-stub":              {"agent.TestCallTool"},
	"ST-5-parameters":        {"skill.TestSkillToolsParametersSchema"},
	"ST-6-input":             {"toolrun.TestRunTool", "e2e:run.txtar"},
	"ST-6-errors":            {"toolrun.TestRunToolEnvelope"},
	"ST-6-js":                {"toolrun.TestRunTool"},
	"ST-6-python":            {"toolrun.TestRunTool", "skill.TestScaffoldPythonHandlerArgv"},
	"ST-6-secrets-env":       {"toolrun.TestRunToolEnv", "toolrun.TestExecEnv"},
	"ST-7-skip-invalid-tool": {"agent.TestBuildScreensSkills"},
	"ST-7-precedence":        {"install.TestDiscoverPrecedence", "agent.TestBuildPrecedence"},

	// Universal Agent Skill.
	"UN-1-layout":                {"skill.TestLoadNotASkill"},
	"UN-1-relative-paths":        {"skill.TestNormalizeRelPath", "skill.TestLintSymlinkEscapes", "skill.TestLintPermissionGlobs"},
	"UN-2-frontmatter":           {"skill.TestCorpusInvalid", "skill.TestLoadHostile"},
	"UN-3-required-fields":       {"skill.TestLintUniversal", "skill.TestLintProfiles/forced-universal-needs-spec-version"},
	"UN-3-name":                  {"skill.TestLintFrontmatterRules/name-reserved-universal", "skill.TestLintFrontmatterRules/name-reserved-every-profile", "skill.TestLintUniversalToolRules"},
	"UN-3-description":           {"skill.TestLintFrontmatterRules/description-xml", "skill.TestLintFrontmatterRules/description-length-runes"},
	"UN-3-reserved-hosts":        {"skill.TestLintHostOverrides/unknown-host", "e2e:prompt.txtar"},
	"UN-4-tools":                 {"skill.TestLintUniversalToolRules", "skill.TestUniversalToolFields"},
	"UN-5-runtime":               {"skill.TestLintUniversalToolRules", "skill.TestRuntimeForPath"},
	"UN-5-bash-json":             {"toolrun.TestRunTool", "toolrun.TestJSONOutput"},
	"UN-6-source-priority":       {"skill.TestToolSourcePriority", "skill.TestLintToolsJSONUniversal"},
	"UN-6-tools-json-format":     {"skill.TestLintToolsJSONUniversal"},
	"UN-6-mcp-mapping":           {"agent.TestToolDefinitions", "agent/mcpserver.TestMCPSession", "e2e:mcp.txtar"},
	"UN-7-json-schema":           {"skill.TestLintUniversalToolRules", "skill.TestCompileSchema"},
	"UN-7-additional-properties": {"skill.TestLintUniversalToolRules"},
	"UN-7-strict":                {"agent.TestStrictCompatible", "agent.TestToolDefinitions"},
	"UN-8-globs":                 {"skill.TestLintPermissionGlobs"},
	"UN-8-safety":                {"skill.TestLintSafety"},
	"UN-8-secrets-scope":         {"toolrun.TestRunToolEnv", "toolrun.TestExecEnv"},
	"UN-9-results":               {"toolrun.TestRunToolEnvelope", "e2e:run.txtar"},
	"UN-9-cancellation":          {"toolrun.TestRunToolCancel", "toolrun.TestProcessGroupKilled"},
	"UN-10-manual-override":      {"skill.TestSelectRules", "e2e:select.txtar"},
	"UN-10-scoring":              {"skill.TestSelectRules", "skill.TestSelectMatchesExplainScore", "e2e:select.txtar", "e2e:mcp-select.txtar"},
	"UN-10-threshold":            {"skill.TestSelectRules", "e2e:select.txtar"},
	"UN-10-tie-break":            {"skill.TestSelectRules", "skill.TestSelectIsDeterministic", "e2e:select.txtar"},
	"UN-10-metadata":             {"agent.TestBuildUsesIndex", "agent.TestPrompts"},
	"UN-10-body-on-demand":       {"agent.TestBuildUsesIndex", "agent.TestLoadSkill"},
	"UN-host-overrides":          {"skill.TestApplyHostOverride", "skill.TestLintHostOverrides", "agent.TestCatalogForHost", "e2e:prompt.txtar", "e2e:tools.txtar"},
	"UN-claude-api-size":         {"skill.TestLintSkillTooLarge"},
	"UN-appendix-a":              {"skill.TestLintUniversal"},
	"UN-smoke-tests":             {"skill.TestLintSmokeTests", "skill.TestExpectationCheck", "agent.TestRunSmokeTestsRefusesMalformed", "e2e:test.txtar"},

	// Skill tool contract.
	"CT-success":          {"agent.TestLoadSkill"},
	"CT-not-found":        {"agent.TestLoadSkill", "agent.TestBuildScreensSkills"},
	"CT-invalid":          {"agent.TestBuildScreensSkills", "e2e:mcp-select.txtar"},
	"CT-validation":       {"skill.TestCorpusInvalid", "skill.TestLintFrontmatterRules/name-mismatch"},
	"CT-supporting-files": {"skill.TestLintLinks", "toolrun.TestScriptContainment"},
	"CT-personal-project": {"agent.TestBuildPrecedence", "install.TestDiscoverPrecedence"},
	"CT-performance":      {"agent.BenchmarkBuild1000", "agent.BenchmarkLoadSkill", "agent.BenchmarkPrompt1000"},

	// Skills-as-tools proposal.
	"PR-load-skill":        {"agent.TestLoadSkill", "e2e:mcp.txtar"},
	"PR-use-skill":         {"agent.TestUseSkill", "toolrun.TestExec", "e2e:exec.txtar"},
	"PR-system-prompt":     {"agent.TestPrompts", "e2e:prompt.txtar"},
	"PR-include-exclude":   {"agent.TestCatalogFilter", "e2e:prompt.txtar", "e2e:select.txtar", "e2e:tools.txtar", "e2e:exec.txtar", "e2e:mcp-select.txtar"},
	"PR-max-output":        {"toolrun.TestExecOutputCap", "cmd/skillpm-full.TestRunOutputCap", "e2e:exec.txtar"},
	"PR-timeout":           {"toolrun.TestRunToolEnvelope", "toolrun.TestProcessGroupKilled"},
	"PR-containment":       {"toolrun.TestScriptContainment"},
	"PR-no-shell":          {"toolrun.TestExec"},
	"PR-structured-errors": {"toolrun.TestExec", "toolrun.TestScriptContainment", "toolrun.TestRunToolEnvelope"},
}
