package command

// The flags and options of the commands that run tools or scripts (run,
// exec, test, mcp).

import (
	"errors"
	"sync"

	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
)

// RunFlags are the flags of the commands that run tools or scripts.
func RunFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "workdir", Usage: "run in `DIR` and pass it as __workDir (default: the current folder)"},
		&cli.DurationFlag{Name: "timeout", Usage: "limit every run to `DURATION`; a tool's own timeout_seconds applies only when lower (default: the tool's own, at most 10m; 30s for tools without one)"},
		&cli.StringSliceFlag{Name: "env", Usage: "let skills receive the environment variable `NAME` if they declare it as a secret (repeatable; also tools.env in config.yaml)"},
		sandboxFlag(),
		yesFlag(),
		&cli.StringFlag{Name: "audit-log", Usage: "append one JSON line per run to `FILE` (default: $SKILLPM_HOME/audit.jsonl, else $XDG_STATE_HOME/skillpm/audit.jsonl)"},
	}
}

// RunOptions turns the run flags, the user config's tools.env and the
// project's skills.yaml into toolrun options. The child's live stderr is
// copied to ours unless --quiet; withheld secrets are warned about.
func RunOptions(e *Env, c *cli.Context) (toolrun.Options, error) {
	o := toolrun.Options{WorkDir: c.String("workdir"), Timeout: c.Duration("timeout"), Groups: &e.Groups}
	o.MaxOutput = c.Int("max-output") // 0 (also when the command has no --max-output): the default
	if o.Timeout < 0 {
		return o, UsageErrorf(c, "--timeout %s is negative", o.Timeout)
	}
	for _, n := range c.StringSlice("env") {
		if !toolrun.ValidEnvName(n) {
			return o, UsageErrorf(c, "--env %q is not an environment variable name (give the name only, not NAME=VALUE)", n)
		}
		o.AllowEnv = append(o.AllowEnv, n)
	}
	cfg, err := e.UserConfig()
	if err != nil {
		return o, err
	}
	o.Grants = cfg.Tools.Env
	mode, err := sandboxMode(c, cfg.Tools.Sandbox)
	if err != nil {
		return o, err
	}
	if dir, err := ProjectDir(c); err == nil {
		switch m, err := project.Load(dir); {
		case err == nil:
			mode = tightenSandbox(e, mode, m)
			// skills.yaml comes with the repository, not from the user: it
			// may grant only names that are not sensitive.
			safe, refused := m.Tools.Env.Untrusted()
			for _, r := range refused {
				if !cfg.Tools.Env.Allows(r.Skill, r.Name) {
					e.Logf("warning: %s grants %s to skill %q, but a project file may not grant a sensitive variable; allow it with --env %s or under tools.env in the user config", m.Path(), r.Name, r.Skill, r.Name)
				}
			}
			o.Grants = o.Grants.Merge(safe)
		case !errors.Is(err, project.ErrNotFound):
			return o, err
		}
	}
	o.Sandbox = &toolrun.Sandbox{Mode: mode, Warn: func(msg string) { e.Logf("warning: %s", msg) }, Proxy: e.Proxy}
	if o.Sandbox.Proxy == nil {
		o.Sandbox.Proxy = toolrun.ProxyProcess(FindFullProxy)
	}
	o.Audit = auditLog(e, c)
	o.Confirm = confirmFunc(e, c)
	if !e.Quiet {
		o.Stderr = e.Stderr
	}
	var mu sync.Mutex
	warned := map[string]bool{}
	o.Withheld = func(skill string, names []string) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range names {
			if warned[skill+"\x00"+n] {
				continue
			}
			warned[skill+"\x00"+n] = true
			e.Logf("warning: skill %q declares the secret %s, which is set but not allowed for it, so it was not passed; allow it with --env %s, or with tools.env: {%s: [%s]} in the user config", skill, n, n, skill, n)
		}
	}
	return o, nil
}
