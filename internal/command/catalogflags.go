package command

// The flag groups and catalog loading that the commands reading installed
// skills share (list, tools, select, prompt, run, exec, test, mcp). The
// work is package catalog's; this file turns flags into its options and
// prints its warnings.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/catalog"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

// CatalogFlags are the flags of every command that reads the installed
// skills.
func CatalogFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "project", Aliases: []string{"C"}, Usage: "read project skills under `DIR` (default: the current folder)"},
		&cli.BoolFlag{Name: "no-index", Usage: "parse every SKILL.md instead of reading the metadata index"},
	}
}

// FilterFlags choose which installed skills a command serves.
func FilterFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "include", Usage: "serve only skills whose name matches `NAME_OR_GLOB` (repeatable)"},
		&cli.StringSliceFlag{Name: "exclude", Usage: "leave out skills whose name matches `NAME_OR_GLOB` (repeatable)"},
	}
}

// HostFlag applies the skills' host_overrides for one host.
func HostFlag() cli.Flag {
	return &cli.StringFlag{Name: "host", Usage: "apply the skills' host_overrides for `HOST`: " + strings.Join(skill.ReservedHosts, ", ")}
}

// MaxOutputFlag caps a run's stdout and stderr.
func MaxOutputFlag() cli.Flag {
	return &cli.IntFlag{Name: "max-output", Usage: "cap a run's stdout and stderr at `BYTES` each (0: 20480), marked [output truncated]"}
}

// SelectionFlags are the inputs of §10 selection besides the text.
func SelectionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "file", Usage: "a `PATH` the request concerns, matched against when_to_use.file_types (repeatable)"},
		&cli.StringSliceFlag{Name: "intent", Usage: "an `INTENT` label, matched against when_to_use.intents (repeatable)"},
		&cli.IntFlag{Name: "threshold", Value: skill.DefaultThreshold, Usage: "select skills scoring at least `N`"},
	}
}

// PrepareCatalog loads the catalog (loadCatalog), reports every skill it
// skips or serves despite lint errors, and applies --include/--exclude and
// --host when the command has them.
func PrepareCatalog(ctx context.Context, e *Env, c *cli.Context) (*agent.Catalog, error) {
	host := c.String("host")
	if err := catalog.CheckHost(host); err != nil {
		return nil, UsageErrorf(c, "%v", err)
	}
	cat, err := loadCatalog(ctx, e, c)
	if err != nil {
		return nil, err
	}
	warn(e, catalog.Health(cat))
	cat, warns, err := catalog.Narrow(cat, c.StringSlice("include"), c.StringSlice("exclude"), host)
	if err != nil {
		return nil, UsageErrorf(c, "%v", err)
	}
	warn(e, warns)
	return cat, nil
}

// SelectQuery builds the selection query of the selection flags.
func SelectQuery(c *cli.Context, text string) skill.Query {
	th := c.Int("threshold")
	if th == 0 {
		th = -1 // --threshold 0 selects every skill, as written
	}
	return skill.Query{Text: text, Files: c.StringSlice("file"), Intents: c.StringSlice("intent"), Threshold: th}
}

// loadCatalog discovers the effective skills of the project (--project,
// else the nearest folder up with skills.yaml, else the current folder, as
// for list) and of $HOME, through the index unless --no-index, and warns
// about skills that cannot be read.
func loadCatalog(ctx context.Context, e *Env, c *cli.Context) (*agent.Catalog, error) {
	project, err := ProjectDir(c)
	if err != nil {
		return nil, fmt.Errorf("project folder: %w", err)
	}
	home, _ := os.UserHomeDir() // no home: no user scope
	opts := catalog.Options{Project: project, Home: home}
	if !c.Bool("no-index") {
		opts.IndexPath, _ = IndexPath() // no cache folder: no index
	}
	l, err := catalog.Load(ctx, opts)
	var noProject *catalog.NoProjectError
	if errors.As(err, &noProject) {
		return nil, UsageErrorf(c, "%v", err)
	}
	if err != nil {
		return nil, err
	}
	cat, st := l.Catalog, l.Catalog.Index
	e.Debugf("catalog: %d skills, %d tools in %s (index %s: %d hits, %d misses, memo %v, read error %v, wrote %v, write error %v)",
		len(cat.Skills), len(cat.Tools), l.Elapsed.Round(time.Microsecond), l.IndexPath, st.Hits, st.Misses, st.Memo, st.ReadErr, st.Wrote, st.WriteErr)
	warn(e, l.Warnings)
	return cat, nil
}

// warn prints each of msgs as a warning on stderr (unless --quiet), one
// line each: the messages quote skill names, paths and errors as they
// are, and a line break in one must not start a line skillpm seems to
// have written.
func warn(e *Env, msgs []string) {
	for _, m := range msgs {
		e.Logf("warning: %s", TermLine(m))
	}
}
