package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/urfave/cli/v2"
)

// projectFlags are shared by the commands that work on a project.
func projectFlags() []cli.Flag {
	return append(registryFlags(),
		&cli.StringFlag{Name: "project", Aliases: []string{"C"}, Usage: "work on the project in `DIR` (default: the nearest folder with skills.yaml)"},
		&cli.BoolFlag{Name: "global", Aliases: []string{"g"}, Usage: "work on the user scope (~/.claude/skills, ~/.agents/skills)"},
		&cli.BoolFlag{Name: "no-index", Usage: "neither read nor update the metadata index"},
	)
}

// projectDir finds the project: --project, else the nearest folder upward
// holding skills.yaml, else the current folder.
func projectDir(c *cli.Context) (string, error) {
	if c.Bool("global") {
		return globalDir()
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

// globalDir holds the user scope's skills.yaml and skills.lock.
// It is $SKILLPM_HOME/global, else the user config folder's skillpm/global.
func globalDir() (string, error) {
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

// setScope points m at the user scope's folders with -g, and sets where
// its targets may resolve to: inside the project (the home folder with
// -g), or inside a folder the user config's allow_target_outside lists.
func setScope(e *env, c *cli.Context, m *manager.Manager) error {
	cfg, err := e.userConfig()
	if err != nil {
		return err
	}
	m.AllowOutside = cfg.AllowTargetOutside
	if !c.Bool("global") {
		return nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	m.Targets = []string{filepath.Join(home, ".claude/skills"), filepath.Join(home, ".agents/skills")}
	m.Owner, m.Root = "user", home
	return nil
}

// openManager loads the project (create: a missing skills.yaml starts
// empty) and connects its registry client.
func openManager(e *env, c *cli.Context, create bool) (*manager.Manager, error) {
	dir, err := projectDir(c)
	if err != nil {
		return nil, err
	}
	p, err := project.Load(dir)
	if errors.Is(err, project.ErrNotFound) && create {
		p = project.New(dir, defaultRegistry())
	} else if err != nil {
		return nil, err
	}
	client, err := newRegistryClient(e, c)
	if err != nil {
		return nil, err
	}
	src := &manager.RegistrySource{Client: client}
	if cache := openMetaCache(e, c.Bool("no-index")); cache != nil {
		src.Cache = cache
		e.atExit(func() {
			if err := cache.Close(); err != nil {
				e.debugf("index not updated: %v", err)
			}
		})
	}
	m := &manager.Manager{Project: p, Registry: src, DefaultRegistry: os.Getenv("SKILLPM_REGISTRY")}
	if e.stderrTTY && !e.quiet || e.debug {
		m.Log = e.stderr
	}
	// The e2e suite crashes installs at a known point with this.
	if n, err := strconv.Atoi(os.Getenv("SKILLPM_TEST_CRASH_AFTER_SWAPS")); err == nil {
		m.CrashAfterSwapsForTesting = n
	}
	if err := setScope(e, c, m); err != nil {
		return nil, err
	}
	return m, nil
}

// openInstaller opens the project for a command that installs: the trust
// policy is enforced on every such path (install, add, remove, update).
func openInstaller(e *env, c *cli.Context, create bool) (*manager.Manager, error) {
	m, err := openManager(e, c, create)
	if err != nil {
		return nil, err
	}
	if err := enforcePolicy(e, c, m); err != nil {
		return nil, err
	}
	return m, nil
}

// defaultRegistry is where a new project resolves from: the SKILLPM_REGISTRY
// environment variable, else a registry folder in the project (the
// embedded default, no server).
func defaultRegistry() string {
	if r := os.Getenv("SKILLPM_REGISTRY"); r != "" {
		return r
	}
	return "oci:./registry"
}

// saveProject writes skills.yaml and skills.lock, the lock last so a
// crash between them leaves a stale lock, which the next run detects.
func saveProject(m *manager.Manager, lock *lockfile.File) error {
	data, err := m.Project.Marshal()
	if err != nil {
		return err
	}
	if err := lockfile.WriteFileAtomic(m.Project.Path(), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", m.Project.Path(), err)
	}
	if err := lockfile.Write(m.LockPath(), lock); err != nil {
		return fmt.Errorf("write %s: %w", m.LockPath(), err)
	}
	return nil
}

// withLock runs fn holding the project lock.
// Every input (skills.yaml, the lock) is read again once the lock is
// held: a run that waited must not work from what another run changed.
func withLock(c *cli.Context, m *manager.Manager, fn func() error) error {
	dir := m.Project.Dir()
	if err := os.MkdirAll(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	l, err := install.Acquire(c.Context, dir)
	if err != nil {
		return err
	}
	defer l.Unlock()
	p, err := project.Load(dir)
	switch {
	case err == nil:
		m.Project = p
	case !errors.Is(err, project.ErrNotFound):
		return err
	}
	return fn()
}

// printChanges reports what an install did.
func printChanges(e *env, res *install.Result, lock *lockfile.File) error {
	if e.json {
		return writeJSON(e.stdout, map[string]any{"changes": nonNil(res.Changes), "skills": lock.Skills})
	}
	if e.quiet {
		return nil
	}
	n := res.Count(install.ActionInstall) + res.Count(install.ActionUpdate) + res.Count(install.ActionRepair)
	fmt.Fprintf(e.stdout, "%d skills locked; %d installed or updated, %d removed, %d unchanged\n",
		len(lock.Skills), n, res.Count(install.ActionRemove), res.Count(install.ActionUnchanged))
	return nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// errNotInstalled reports a skill that is not in the project.
var errNotInstalled = errors.New("skill not installed")

// openOffline loads the project and its lock (nil when there is none) for
// commands that need no registry.
func openOffline(e *env, c *cli.Context) (*manager.Manager, *lockfile.File, error) {
	dir, err := projectDir(c)
	if err != nil {
		return nil, nil, err
	}
	p, err := project.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	m := &manager.Manager{Project: p}
	if err := setScope(e, c, m); err != nil {
		return nil, nil, err
	}
	lock, err := m.ReadLock()
	return m, lock, err
}
