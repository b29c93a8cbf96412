package main

import (
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/sandbox"
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
			return "", usageErrorf(c, "--sandbox: %v", err)
		}
		return m, nil
	}
	return sandbox.ParseMode(configured) // validated when the config was loaded
}

// tightenSandbox applies skills.yaml's tools.sandbox, which may only make
// mode stricter; a looser one is ignored with a warning.
func tightenSandbox(e *env, mode sandbox.Mode, m *project.Manifest) sandbox.Mode {
	pm, err := sandbox.ParseMode(m.Tools.Sandbox)
	if err != nil || m.Tools.Sandbox == "" {
		return mode
	}
	t := sandbox.Tighter(mode, pm)
	if t != pm {
		e.logf("warning: %s sets tools.sandbox: %s, but a project file may only tighten the sandbox; using %s", m.Path(), pm, mode)
	}
	return t
}

// configuredSandbox is the sandbox mode runs would get without --sandbox:
// the user config's, tightened by skills.yaml.
func configuredSandbox(e *env, c *cli.Context) (sandbox.Mode, error) {
	cfg, err := e.userConfig()
	if err != nil {
		return "", err
	}
	mode, err := sandbox.ParseMode(cfg.Tools.Sandbox)
	if err != nil {
		return "", err
	}
	if dir, err := projectDir(c); err == nil {
		if m, err := project.Load(dir); err == nil {
			mode = tightenSandbox(e, mode, m)
		}
	}
	return mode, nil
}
