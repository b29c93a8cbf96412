// Package frontdeps holds no code. Its test keeps the library packages
// that the everyday read-only commands run in-process (--version, list,
// tools, prompt, search over the local index, run) free of the
// dependencies that make a Go program slow to start: the OCI registry
// client (oras-go, go-digest, image-spec), sigstore, and the MCP SDK
// with its JSON Schema package. Every package a program links is
// initialised at start, so one import of them from these packages costs
// every command its start-up time.
//
// The commands that need them ('skillpm mcp', install from a registry,
// verify) reach them through other packages: agent/mcpserver, registry,
// verify, source/git and source/wellknown.
package frontdeps
