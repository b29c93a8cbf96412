package toolrun

import (
	"context"
	"time"

	"github.com/skillpm/skillpm/sandbox"
)

// Script is what Exec needs to run one script from a skill folder.
type Script struct {
	Skill   string        // skill name, for errors
	Dir     string        // skill folder; made absolute if relative
	Path    string        // script file, relative to Dir
	Args    []string      // passed as argv, never through a shell
	Secrets []string      // env var names the skill declares; passed through from Options.Env if set and granted
	Timeout time.Duration // the script's own timeout; applies when positive and lower than the limit (see Tool.Timeout)
	// Permissions is what the skill declares; see Tool.Permissions.
	Permissions sandbox.Permissions
	// Confirm, if set, is the gate in front of the script; see
	// Tool.Confirm.
	Confirm *Confirmation
	// Origin identifies the skill in the audit log.
	Origin Origin
}

// ExecResult is the use_skill result, JSON-tagged as the skills-as-tools
// proposal defines it.
type ExecResult struct {
	Success  bool   `json:"success"`
	Stdout   string `json:"stdout"`          // capped at Options.MaxOutput, then "[output truncated]"
	Stderr   string `json:"stderr"`          // capped likewise
	ExitCode int    `json:"exitCode"`        // -1 if the script did not run or was killed by a signal
	Error    string `json:"error,omitempty"` // set on failure
	// ErrorType is the failure's Kind (SkillNotFound, ScriptNotFound,
	// ScriptNotAllowed, ExecutionTimeout, ExecutionFailed,
	// PermissionDenied), for agents to tell failures apart.
	ErrorType Kind `json:"errorType,omitempty"`
}

// Exec runs s.Path from the skill folder with s.Args, the use_skill
// contract. The interpreter comes from the extension: .js, .mjs and .cjs run
// under node, .py under python3, .sh under bash; anything else is executed
// directly and must be executable. Stdin is empty.
//
// The returned ExecResult is never nil and is the value to hand to the
// agent. The error is nil exactly when the script exited 0; otherwise it is
// an *Error whose Kind is SkillNotFound, ScriptNotFound, ScriptNotAllowed,
// ExecutionTimeout or ExecutionFailed (non-zero exit, start failure, ctx
// cancelled), and res.Error holds its message.
func Exec(ctx context.Context, s Script, opts Options) (*ExecResult, error) {
	res := &ExecResult{ExitCode: -1}
	start := time.Now()
	confirmed := ""
	fail := func(e *Error) (*ExecResult, error) {
		e.Skill, e.Script = s.Skill, s.Path
		opts.audit(AuditRecord{Skill: s.Skill, Origin: s.Origin, Dir: s.Dir, Script: s.Path, Confirmation: confirmed}, start, res.ExitCode, e)
		res.Success, res.Error, res.ErrorType = false, e.Error(), e.Kind
		return res, e
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return fail(&Error{Kind: ExecutionFailed, Msg: "working directory", Err: err})
	}
	script, e := resolveScript(s.Dir, s.Path)
	if e != nil {
		return fail(e)
	}
	if confirmed, e = opts.confirm(ctx, s.Confirm, ConfirmRequest{Skill: s.Skill, Script: s.Path}); e != nil {
		return fail(e)
	}
	env := opts.childEnv(s.Skill, s.Secrets)
	p := proc{
		dir:       opts.WorkDir,
		env:       env,
		timeout:   runTimeout(s.Timeout, opts.Timeout),
		maxOutput: opts.MaxOutput,
		stderr:    opts.Stderr,
		groups:    opts.Groups,
		redact:    redactor(env, s.Secrets),
	}
	var interp string
	p.runtime = inferRuntime(s.Path)
	switch p.runtime {
	case RuntimeNode:
		interp = opts.NodePath
	case RuntimePython:
		interp = opts.PythonPath
	case RuntimeBash:
		interp = "bash"
	}
	if interp == "" {
		p.path, p.args = script, s.Args
	} else {
		p.path, err = lookPath(interp, envValue(env, "PATH"))
		if err != nil {
			return fail(&Error{Kind: ExecutionFailed, Msg: "interpreter", Err: err})
		}
		// "--" is not needed: the script path is absolute, so no
		// interpreter can mistake it for an option, and the args follow it.
		p.args = append([]string{script}, s.Args...)
	}

	cleanup, e := opts.confine(&p, s.Permissions, s.Dir)
	defer cleanup()
	if e != nil {
		return fail(e)
	}

	oc, err := p.run(ctx)
	res.Stdout, res.Stderr, res.ExitCode = oc.stdout, oc.stderr, oc.exitCode
	if e := outcomeError(oc, err, p.timeout); e != nil {
		return fail(sandboxDenied(e, p, oc))
	}
	res.Success = true
	opts.audit(AuditRecord{Skill: s.Skill, Origin: s.Origin, Dir: s.Dir, Script: s.Path, Confirmation: confirmed}, start, res.ExitCode, nil)
	return res, nil
}
