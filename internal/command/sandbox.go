package command

import (
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/sandbox"
	"github.com/skillpm/skillpm/toolrun"
	"github.com/urfave/cli/v2"
)

// sandboxFlag is --sandbox, shared by run, exec, mcp and test.
func sandboxFlag() cli.Flag {
	return &cli.StringFlag{Name: "sandbox", Usage: "confine tool runs: `MODE` off, default or strict (default: tools.sandbox in config.yaml, else default; skills.yaml may only tighten it)"}
}

// sandboxMode is the user's sandbox mode: --sandbox, else the user
// config's tools.sandbox, else default.
func sandboxMode(c *cli.Context, configured string) (sandbox.Mode, error) {
	if c.IsSet("sandbox") {
		m, err := sandbox.ParseMode(c.String("sandbox"))
		if err != nil {
			return "", UsageErrorf(c, "--sandbox: %v", err)
		}
		return m, nil
	}
	return sandbox.ParseMode(configured) // validated when the config was loaded
}

// tightenSandbox applies skills.yaml's tools.sandbox, which may only make
// mode stricter; a looser one is ignored with a warning.
func tightenSandbox(e *Env, mode sandbox.Mode, m *project.Manifest) sandbox.Mode {
	pm, err := sandbox.ParseMode(m.Tools.Sandbox)
	if err != nil || m.Tools.Sandbox == "" {
		return mode
	}
	t := sandbox.Tighter(mode, pm)
	if t != pm {
		e.Logf("warning: %s sets tools.sandbox: %s, but a project file may only tighten the sandbox; using %s", m.Path(), pm, mode)
	}
	return t
}

// configuredSandbox is the sandbox mode runs would get without --sandbox:
// the user config's, tightened by skills.yaml.
func configuredSandbox(e *Env, c *cli.Context) (sandbox.Mode, error) {
	cfg, err := e.UserConfig()
	if err != nil {
		return "", err
	}
	mode, err := sandbox.ParseMode(cfg.Tools.Sandbox)
	if err != nil {
		return "", err
	}
	if dir, err := ProjectDir(c); err == nil {
		if m, err := project.Load(dir); err == nil {
			mode = tightenSandbox(e, mode, m)
		}
	}
	return mode, nil
}

// auditLog opens the audit log (--audit-log, else the default file) for
// appending. It stays open until the process exits. If it cannot be
// opened, runs go on unlogged after a warning.
func auditLog(e *Env, c *cli.Context) *toolrun.AuditLog {
	path := c.String("audit-log")
	if path == "" {
		switch {
		case skillpmHome() != "":
			path = filepath.Join(skillpmHome(), "audit.jsonl")
		case os.Getenv("XDG_STATE_HOME") != "":
			path = filepath.Join(os.Getenv("XDG_STATE_HOME"), "skillpm", "audit.jsonl")
		default:
			home, err := os.UserHomeDir()
			if err != nil {
				e.Logf("warning: no audit log: %v", err)
				return nil
			}
			path = filepath.Join(home, ".local", "state", "skillpm", "audit.jsonl")
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		e.Logf("warning: no audit log: %v", err)
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		e.Logf("warning: no audit log: %v", err)
		return nil
	}
	caller := "cli"
	if c.Command != nil && c.Command.Name == "mcp" {
		caller = "mcp"
	}
	return toolrun.NewAuditLog(f, caller)
}
