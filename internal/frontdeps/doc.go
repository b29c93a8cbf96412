// Package frontdeps holds no code. Its test keeps the library packages
// that the everyday read-only commands run in-process (--version, list,
// tools, prompt, search over the local index, run) free of the
// dependencies that make a Go program slow to start: the OCI registry
// client (oras-go, go-digest, image-spec), sigstore, and the MCP SDK
// with its JSON Schema package. Every package a program links is
// initialised at start, so one import of them from these packages costs
// every command its start-up time.
//
// The front program (cmd/skillpm) is checked with them: it links only
// these, and hands every command that needs more ('skillpm mcp', an
// install that must fetch, verify) to cmd/skillpm-full, which reaches
// them through agent/mcpserver, registry, verify, source/git and
// source/wellknown.
package frontdeps
