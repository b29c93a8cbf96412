package toolrun

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Kind classifies an [Error]. The values are the structured error names of
// the skills-as-tools proposal, plus InvalidInput for arguments that fail the
// tool's input schema.
type Kind string

// The kinds of [Error].
const (
	// SkillNotFound: the skill folder does not exist or is not a directory.
	SkillNotFound Kind = "SkillNotFound"
	// ScriptNotFound: the script or entrypoint does not exist in the skill
	// folder, or is a directory.
	ScriptNotFound Kind = "ScriptNotFound"
	// ScriptNotAllowed: the script path is absolute, contains "..", resolves
	// (through symlinks) outside the skill folder, or is not a regular file.
	ScriptNotAllowed Kind = "ScriptNotAllowed"
	// ExecutionTimeout: the script ran past its timeout and its process
	// group was killed.
	ExecutionTimeout Kind = "ExecutionTimeout"
	// ExecutionFailed: the script could not be started, exited non-zero, the
	// handler threw, the run was cancelled, the sandbox stopped it for
	// holding too many processes and threads, or the tool definition itself
	// is unusable (unknown runtime, input schema that does not compile).
	ExecutionFailed Kind = "ExecutionFailed"
	// PermissionDenied: the sandbox denied an operation the handler tried
	// (reading or writing outside its allowance, a connection, a
	// subprocess), or strict mode refused to run unconfined.
	PermissionDenied Kind = "PermissionDenied"
	// InvalidOutput: the handler's result does not match the tool's
	// output schema, or is not JSON although the tool declares one.
	InvalidOutput Kind = "InvalidOutput"
	// NotConfirmed: the tool or script needs the user's confirmation
	// (confirmation.level, safety.require_confirmation_for) and the user
	// declined, or could not be asked.
	NotConfirmed Kind = "NotConfirmed"
	// InvalidInput: the tool input is not a JSON object or does not match
	// the tool's input schema.
	InvalidInput Kind = "InvalidInput"
)

// Error is the error returned by [RunTool] and [Exec]. Match it with
// errors.As, or use [KindOf].
type Error struct {
	Kind   Kind
	Skill  string // skill name as given by the caller
	Tool   string // tool name; empty for Exec
	Script string // script path as given; set by Exec, and by RunTool for entrypoint errors
	Msg    string // what went wrong, without the skill/tool prefix
	Err    error  // underlying cause, if any (context.Canceled, an *os.PathError, ...)
}

// Error returns `skill "s": tool "t": script "p": msg: cause`, leaving out
// the parts that are empty, with control characters other than tab and
// newline written as \xNN.
func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "skill %q", e.Skill)
	if e.Tool != "" {
		fmt.Fprintf(&b, ": tool %q", e.Tool)
	}
	if e.Script != "" {
		fmt.Fprintf(&b, ": script %q", e.Script)
	}
	if e.Msg != "" {
		b.WriteString(": " + e.Msg)
	}
	if e.Err != nil {
		b.WriteString(": " + e.Err.Error())
	}
	return printable(b.String()) // Msg may quote a handler's output
}

// Unwrap returns the underlying cause, so errors.Is(err, context.Canceled)
// works.
func (e *Error) Unwrap() error { return e.Err }

// Code returns the Universal Agent Skill error code for the envelope:
// INVALID_ARGUMENT, INVALID_OUTPUT, TIMEOUT, NOT_FOUND, PERMISSION_DENIED,
// CONFIRMATION_REQUIRED or EXECUTION_FAILED.
func (e *Error) Code() string {
	switch e.Kind {
	case InvalidInput:
		return "INVALID_ARGUMENT"
	case ExecutionTimeout:
		return "TIMEOUT"
	case InvalidOutput:
		return "INVALID_OUTPUT"
	case SkillNotFound, ScriptNotFound:
		return "NOT_FOUND"
	case ScriptNotAllowed, PermissionDenied:
		return "PERMISSION_DENIED"
	case NotConfirmed:
		return "CONFIRMATION_REQUIRED"
	default:
		return "EXECUTION_FAILED"
	}
}

// Retriable reports whether running the same call again may succeed. Only
// timeouts are retriable.
func (e *Error) Retriable() bool { return e.Kind == ExecutionTimeout }

// Envelope returns the Universal Agent Skill error envelope,
// {"status":"error","error":{"code":...,"message":...,"retriable":...}},
// ready to hand to the agent.
func (e *Error) Envelope() json.RawMessage {
	type body struct {
		Code      string `json:"code"`
		Message   string `json:"message"`
		Retriable bool   `json:"retriable"`
	}
	env := struct {
		Status string `json:"status"`
		Error  body   `json:"error"`
	}{"error", body{e.Code(), e.Error(), e.Retriable()}}
	b, err := json.Marshal(env)
	if err != nil { // cannot happen: only strings and a bool
		panic(err)
	}
	return b
}

// KindOf returns the Kind of the first *Error in err's chain, or "" if there
// is none.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}
