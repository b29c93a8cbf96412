package command

import (
	"os"
	"path/filepath"
	"time"

	"github.com/skillpm/skillpm/config"
	"github.com/skillpm/skillpm/project"
	"github.com/urfave/cli/v2"
)

// RegistryFlags are shared by every command that talks to a registry.
func RegistryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "plain-http", Usage: "talk to the registry over plain HTTP (loopback registries; also plain_http in config.yaml)"},
		&cli.DurationFlag{Name: "connect-timeout", Usage: "give up connecting to a registry after `DURATION` (default 10s; timeouts.connect in config.yaml)"},
		&cli.DurationFlag{Name: "response-timeout", Usage: "give up on a registry that sends no response for `DURATION` after a request (default 30s; timeouts.response_header)"},
		&cli.DurationFlag{Name: "stall-timeout", Usage: "give up on a download that receives less than 1 KiB in `DURATION` (default 30s; timeouts.stall)"},
	}
}

// RegistryOptions are the shared registry flags (RegistryFlags), read
// once. The zero value takes everything from the user config.
type RegistryOptions struct {
	// PlainHTTP (--plain-http) talks to every registry over plain HTTP;
	// false leaves it to the user config's plain_http hosts.
	PlainHTTP bool
	// Timeouts override the user config's where set
	// (--connect-timeout, --response-timeout, --stall-timeout); a zero
	// field keeps the config's value.
	Timeouts config.Timeouts
}

// ReadRegistryOptions reads the registry flag group. A timeout flag that
// is set must be positive.
func ReadRegistryOptions(c *cli.Context) (RegistryOptions, error) {
	ro := RegistryOptions{PlainHTTP: c.Bool("plain-http")}
	for _, f := range []struct {
		name string
		v    *time.Duration
	}{{"connect-timeout", &ro.Timeouts.Connect}, {"response-timeout", &ro.Timeouts.ResponseHeader}, {"stall-timeout", &ro.Timeouts.Stall}} {
		if c.IsSet(f.name) {
			if *f.v = c.Duration(f.name); *f.v <= 0 {
				return ro, UsageErrorf(c, "--%s must be a positive duration (like 30s)", f.name)
			}
		}
	}
	return ro, nil
}

// Over is cfg with the timeouts ro sets in place of the config's.
func (ro RegistryOptions) Over(cfg config.Timeouts) config.Timeouts {
	t := cfg
	for _, f := range []struct{ set, to *time.Duration }{
		{&ro.Timeouts.Connect, &t.Connect}, {&ro.Timeouts.ResponseHeader, &t.ResponseHeader}, {&ro.Timeouts.Stall, &t.Stall},
	} {
		if *f.set != 0 {
			*f.to = *f.set
		}
	}
	return t
}

// ProjectFlags are shared by the commands that work on a project.
func ProjectFlags() []cli.Flag {
	return append(RegistryFlags(),
		&cli.StringFlag{Name: "project", Aliases: []string{"C"}, Usage: "work on the project in `DIR` (default: the nearest folder with skills.yaml)"},
		&cli.BoolFlag{Name: "global", Aliases: []string{"g"}, Usage: "work on the user scope (~/.claude/skills, ~/.agents/skills; with agents: in its skills.yaml, their user folders)"},
		&cli.BoolFlag{Name: "no-index", Usage: "neither read nor update the metadata index"},
	)
}

// ProjectOptions are the shared project flags (ProjectFlags), read once.
type ProjectOptions struct {
	Dir     string // the project folder (ProjectDir)
	Global  bool   // -g: the user scope
	NoIndex bool   // --no-index
}

// ReadProjectOptions reads the project flag group.
func ReadProjectOptions(c *cli.Context) (ProjectOptions, error) {
	dir, err := ProjectDir(c)
	return ProjectOptions{Dir: dir, Global: c.Bool("global"), NoIndex: c.Bool("no-index")}, err
}

// ProjectDir finds the project: --project, else the nearest folder upward
// holding skills.yaml, else the current folder.
func ProjectDir(c *cli.Context) (string, error) {
	if c.Bool("global") {
		return GlobalDir()
	}
	if d := c.String("project"); d != "" {
		return filepath.Abs(d)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, project.FileName)); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return wd, nil
		}
	}
}

// GlobalDir holds the user scope's skills.yaml and skills.lock.
// It is $SKILLPM_HOME/global, else the user config folder's skillpm/global.
func GlobalDir() (string, error) {
	h := skillpmHome()
	if h == "" {
		c, err := os.UserConfigDir()
		if err != nil {
			return "", err
		}
		h = filepath.Join(c, "skillpm")
	}
	d := filepath.Join(h, "global")
	return d, os.MkdirAll(d, 0o755)
}
