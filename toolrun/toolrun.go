// Package toolrun runs the tools and scripts that skills declare, safely.
//
// [RunTool] runs one declared tool: it validates the input against the
// tool's JSON Schema, injects __workDir, and calls the handler the way the
// Skill Tools and Universal Agent Skill specs describe (a Node ESM export, a
// Python function, or a bash script or executable speaking JSON on stdin and
// stdout). [Exec] runs a script from a skill folder with string arguments,
// the use_skill contract of the skills-as-tools proposal.
//
// Both enforce the same safety rules: the script must be a regular file
// inside the skill folder (no absolute paths, no "..", no symlinks out);
// there is no shell, only argv; the child runs in its own process group,
// which is killed on timeout, on cancellation, and when the main process
// exits; stdout and stderr are each capped, the excess drained and replaced
// by "[output truncated]"; and the child sees only a minimal environment
// plus the secrets the skill declares and the user grants it.
//
// Failures are *Error values with a [Kind]; [Error.Envelope] turns one into
// the Universal Agent Skill error envelope.
package toolrun

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/skillpm/skillpm/sandbox"
)

// Defaults for zero Options fields.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 20 * 1024 // bytes per stream
)

// Runtimes a Tool can name.
const (
	RuntimePython = "python"
	RuntimeNode   = "node"
	RuntimeBash   = "bash"
)

// Tool is what RunTool needs to run one declared tool.
type Tool struct {
	Skill      string // skill name, for errors
	Dir        string // skill folder; made absolute if relative
	Name       string // tool name, for errors
	Runtime    string // "python", "node", "bash", or "" to infer from the entrypoint's extension
	Entrypoint string // handler file, relative to Dir
	// Handler is the function to call: for python, default "handler"; for
	// node, the export name, default "default". Ignored for bash and other
	// executables.
	Handler string
	// Timeout is the tool's own timeout (see [Seconds]); it applies when
	// positive and lower than the limit (Options.Timeout, or MaxTimeout).
	Timeout time.Duration
	// InputSchema is the tool's JSON Schema (2020-12 unless it says
	// otherwise); nil accepts any object.
	InputSchema json.RawMessage
	// OutputSchema is the tool's output_schema; when set, a result that
	// is not JSON or does not match it fails with InvalidOutput.
	OutputSchema json.RawMessage
	// Secrets names the environment variables the skill declares; each is
	// passed through from Options.Env if set there and granted to the
	// skill (Options.Grants or Options.AllowEnv).
	Secrets []string
	// Permissions is what the skill declares (Universal §8); the sandbox
	// enforces it (see Options.Sandbox).
	Permissions sandbox.Permissions
	// Confirm, if set, is the gate in front of the tool: Options.Confirm
	// must confirm before the handler runs.
	Confirm *Confirmation
	// Origin identifies the skill in the audit log.
	Origin Origin
}

// Options configures a run. The zero value is ready to use.
type Options struct {
	// WorkDir is the child's working directory and the __workDir given to
	// handlers. Default: the current directory.
	WorkDir string
	// Timeout is the user's limit on a run: it caps a tool's own timeout
	// and applies to runs without one. If <= 0, a tool's own timeout
	// applies up to MaxTimeout (10m), and DefaultTimeout (30s) to runs
	// without one.
	Timeout time.Duration
	// MaxOutput caps stdout and stderr, each, in bytes. If <= 0,
	// DefaultMaxOutput (20 KB) is used.
	MaxOutput int
	// Env is the host environment to pick the child's variables from.
	// Default: os.Environ(). Only PATH, HOME, LANG, LC_ALL, TMPDIR, TERM
	// (and the Windows essentials such as SYSTEMROOT) plus the declared
	// secrets granted to the skill are passed on.
	Env []string
	// Grants are the variables each skill may receive (the user config's
	// tools.env, and what a project may grant, see [Grants.Untrusted]).
	Grants Grants
	// AllowEnv are variables every skill run with these options may
	// receive (the --env flag).
	AllowEnv []string
	// Withheld, if set, is told about the secrets a skill declares that
	// are set in Env but were not passed because nothing grants them.
	Withheld func(skill string, names []string)
	// Groups, if set, records the child's process group while it runs,
	// so that the host can kill every running child at once.
	Groups *Groups
	// Stderr, if set, receives a live, uncapped copy of the child's stderr.
	Stderr io.Writer
	// NodePath and PythonPath are the interpreters. Default: "node" and
	// "python3", looked up in the PATH of Env.
	NodePath, PythonPath string
	// Sandbox, if set and not off, confines every child to its skill's
	// declared permissions (or the default profile). Nil runs unconfined.
	Sandbox *Sandbox
	// Audit, if set, gets one record per run.
	Audit *AuditLog
	// Confirm asks the user to confirm a gated tool or script (see
	// Tool.Confirm). It returns how the run was confirmed ("--yes",
	// "prompt", "elicitation"; recorded in the audit log), an error
	// wrapping ErrDeclined when the user said no, or another error
	// saying why the user could not be asked and how to confirm. Nil
	// refuses every gated run.
	Confirm func(ctx context.Context, r ConfirmRequest) (how string, err error)
}

// Result is the outcome of RunTool.
type Result struct {
	// Output is what to hand back to the agent: on success the handler's
	// JSON result (stdout that is not JSON becomes a JSON string); on
	// failure the error envelope.
	Output json.RawMessage
	// Stderr is the child's stderr, capped. For node and python handlers it
	// also holds whatever the handler printed.
	Stderr string
	// ExitCode is the child's exit status, or -1 if it did not run or was
	// killed by a signal.
	ExitCode int
	// Duration is the wall time of the child process.
	Duration time.Duration
}

// RunTool validates input against t.InputSchema, adds "__workDir", runs the
// tool's handler and returns its result.
//
// The returned Result is never nil: on failure its Output is the error
// envelope, so a host can always pass res.Output to the agent. The error is
// nil or an *Error: InvalidInput for input that is not an object or fails the
// schema, SkillNotFound, ScriptNotFound or ScriptNotAllowed for a bad
// entrypoint, ExecutionTimeout, or ExecutionFailed for a non-zero exit, a
// thrown exception or a cancelled ctx.
func RunTool(ctx context.Context, t Tool, input json.RawMessage, opts Options) (*Result, error) {
	res := &Result{ExitCode: -1}
	start := time.Now()
	confirmed := ""
	fail := func(e *Error) (*Result, error) {
		e.Skill, e.Tool = t.Skill, t.Name
		res.Output = e.Envelope()
		opts.audit(AuditRecord{Skill: t.Skill, Origin: t.Origin, Dir: t.Dir, Tool: t.Name, Confirmation: confirmed}, start, res.ExitCode, e)
		return res, e
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return fail(&Error{Kind: ExecutionFailed, Msg: "working directory", Err: err})
	}

	args, e := decodeInput(input)
	if e != nil {
		return fail(e)
	}
	if e := validateInput(t.InputSchema, args); e != nil {
		return fail(e)
	}
	if confirmed, e = opts.confirm(ctx, t.Confirm, ConfirmRequest{Skill: t.Skill, Tool: t.Name}); e != nil {
		return fail(e)
	}
	args["__workDir"] = opts.WorkDir // the host's value always wins
	stdin, err := json.Marshal(args)
	if err != nil {
		return fail(&Error{Kind: InvalidInput, Msg: "encode input", Err: err})
	}

	script, e := resolveScript(t.Dir, t.Entrypoint)
	if e != nil {
		e.Script = t.Entrypoint
		return fail(e)
	}
	env := opts.childEnv(t.Skill, t.Secrets)
	p := proc{
		stdin:     stdin,
		dir:       opts.WorkDir,
		env:       env,
		timeout:   runTimeout(t.Timeout, opts.Timeout),
		maxOutput: opts.MaxOutput,
		stderr:    opts.Stderr,
		groups:    opts.Groups,
		redact:    redactor(env, t.Secrets),
	}
	rt := t.Runtime
	if rt == "" {
		rt = inferRuntime(t.Entrypoint)
	}
	wrapped := false
	switch rt {
	case RuntimeNode:
		p.path, err = lookPath(opts.NodePath, envValue(env, "PATH"))
		p.args = []string{"--input-type=module", "-e", nodeWrapper, "--", script, cmp.Or(t.Handler, "default")}
		wrapped = true
	case RuntimePython:
		p.path, err = lookPath(opts.PythonPath, envValue(env, "PATH"))
		p.args = []string{"-I", "-B", "-c", pythonWrapper, script, cmp.Or(t.Handler, "handler")}
		wrapped = true
	case RuntimeBash:
		p.path, err = lookPath("bash", envValue(env, "PATH"))
		p.args = []string{script}
	case "":
		p.path = script
	default:
		return fail(&Error{Kind: ExecutionFailed, Msg: fmt.Sprintf("unsupported runtime %q; want python, node or bash", t.Runtime)})
	}
	if err != nil {
		return fail(&Error{Kind: ExecutionFailed, Msg: rt + " runtime", Err: err})
	}
	p.runtime = rt
	cleanup, e := opts.confine(&p, t.Permissions, t.Dir)
	defer cleanup()
	if e != nil {
		return fail(e)
	}

	oc, err := p.run(ctx)
	res.Stderr, res.ExitCode, res.Duration = oc.stderr, oc.exitCode, oc.duration
	if e := outcomeError(oc, err, p.timeout); e != nil {
		if wrapped && oc.exitCode > 0 {
			var reported struct{ Message string }
			if json.Unmarshal([]byte(oc.stdout), &reported) == nil && reported.Message != "" {
				e.Msg = "handler failed: " + reported.Message
			}
		}
		return fail(sandboxDenied(e, p, oc))
	}
	res.Output = jsonOutput(oc.stdout, oc.stdoutCut)
	isText := len(res.Output) > 0 && res.Output[0] == '"' && !json.Valid([]byte(strings.TrimSpace(oc.stdout)))
	if e := checkOutput(t.OutputSchema, res.Output, isText); e != nil {
		return fail(e)
	}
	opts.audit(AuditRecord{Skill: t.Skill, Origin: t.Origin, Dir: t.Dir, Tool: t.Name, Confirmation: confirmed}, start, res.ExitCode, nil)
	return res, nil
}

// outcomeError turns a failed run into an *Error, or returns nil.
func outcomeError(oc outcome, startErr error, timeout time.Duration) *Error {
	switch {
	case startErr != nil:
		return &Error{Kind: ExecutionFailed, Msg: "start", Err: startErr}
	case oc.tasks > 0:
		return &Error{Kind: ExecutionFailed, Msg: fmt.Sprintf("stopped by the sandbox: it ran %d processes and threads at once, more than its limit of %d", oc.tasks, oc.taskLimit)}
	case oc.timedOut:
		return &Error{Kind: ExecutionTimeout, Msg: fmt.Sprintf("timed out after %s; process group killed", timeout)}
	case oc.cancelled != nil:
		return &Error{Kind: ExecutionFailed, Msg: "cancelled", Err: oc.cancelled}
	case oc.exitCode != 0:
		msg := fmt.Sprintf("exit status %d", oc.exitCode)
		if oc.exitCode < 0 {
			msg = "killed by a signal"
		}
		if line := lastLine(oc.stderr); line != "" {
			msg += ": " + line
		}
		return &Error{Kind: ExecutionFailed, Msg: msg}
	}
	return nil
}

// jsonOutput returns stdout as JSON: itself if it is a JSON value, else a
// JSON string holding it (less one trailing newline).
func jsonOutput(stdout string, cut bool) json.RawMessage {
	if trimmed := strings.TrimSpace(stdout); !cut && trimmed != "" && json.Valid([]byte(trimmed)) {
		return json.RawMessage(trimmed)
	}
	s := strings.TrimSuffix(strings.TrimSuffix(stdout, "\n"), "\r")
	b, _ := json.Marshal(s) // a string always marshals
	return b
}

// lastLine returns the last non-empty line of s (skipping the truncation
// marker), shortened to 300 bytes.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\r\n\t "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || l == truncatedMarker {
			continue
		}
		if len(l) > 300 {
			l = strings.ToValidUTF8(l[:300], "") + "..."
		}
		return l
	}
	return ""
}

// inferRuntime picks the runtime from a file extension; "" means run the
// file directly.
func inferRuntime(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".js", ".mjs", ".cjs":
		return RuntimeNode
	case ".py":
		return RuntimePython
	case ".sh":
		return RuntimeBash
	}
	return ""
}

// childEnv is the environment of a child of skill, which declares
// secrets; withheld secrets are reported to o.Withheld.
func (o Options) childEnv(skill string, secrets []string) []string {
	env, withheld := childEnv(o.Env, secrets, func(name string) bool {
		return o.Grants.Allows(skill, name) || slices.ContainsFunc(o.AllowEnv, func(n string) bool { return envKey(n) == envKey(name) })
	})
	if len(withheld) > 0 && o.Withheld != nil {
		o.Withheld(skill, withheld)
	}
	return env
}

// withDefaults fills in zero fields (but not Timeout: see runTimeout).
func (o Options) withDefaults() (Options, error) {
	if o.WorkDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return o, err
		}
		o.WorkDir = wd
	}
	wd, err := filepath.Abs(o.WorkDir)
	if err != nil {
		return o, err
	}
	o.WorkDir = wd
	if o.MaxOutput <= 0 {
		o.MaxOutput = DefaultMaxOutput
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	o.NodePath = cmp.Or(o.NodePath, "node")
	o.PythonPath = cmp.Or(o.PythonPath, "python3")
	return o, nil
}
