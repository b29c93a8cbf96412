package main

import (
	"fmt"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/urfave/cli/v2"
)

func installCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:    "install",
		Aliases: []string{"i"},
		Usage:   "install the project's locked skills into its target folders",
		UsageText: `skillpm install [options]

Installs exactly the skills of skills.lock into every target of skills.yaml.
Without a lock, or when skills.yaml changed, it re-resolves what changed
(keeping other locked versions) and writes the lock first.

Examples:
  skillpm install
  skillpm install --frozen      # CI: fail (exit 8) if the lock is missing or stale
  skillpm install --dry-run --json
  skillpm install --from skills-bundle.tar   # air-gapped: see 'skillpm bundle'`,
		Flags: append(projectFlags(),
			&cli.BoolFlag{Name: "frozen", Usage: "install from skills.lock as is; fail if it is missing or stale, and write nothing"},
			&cli.BoolFlag{Name: "force", Usage: "replace or remove managed skills that have local edits"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would change, change nothing"},
			&cli.StringFlag{Name: "from", Usage: "install skills.lock from `BUNDLE` ('skillpm bundle' output) with no network; implies --frozen"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usageErrorf(c, "install takes no arguments; to add a skill use 'skillpm add %s'", c.Args().First())
			}
			m, err := openInstaller(e, c, false)
			if err != nil {
				return err
			}
			if from := c.String("from"); from != "" {
				done, err := useBundle(m, from)
				if err != nil {
					return err
				}
				defer done()
			}
			return withLock(c, m, func() error {
				lock, err := m.ReadLock()
				if err != nil {
					return err
				}
				onDisk, write := lock, false
				if c.Bool("frozen") || c.String("from") != "" {
					if lock == nil {
						return fmt.Errorf("%w: %s does not exist (run 'skillpm install' and commit skills.lock)", manager.ErrStaleLock, m.LockPath())
					}
					if !m.Fresh(lock) {
						return fmt.Errorf("%w: %s was resolved from another skills.yaml (run 'skillpm install' and commit skills.lock)", manager.ErrStaleLock, m.LockPath())
					}
				} else if !m.Fresh(lock) {
					fresh, _, err := m.Resolve(c.Context, manager.ResolveOptions{Previous: lock})
					if err != nil {
						return err
					}
					lock, write = fresh, !c.Bool("dry-run")
				}
				// The lock is written once the targets match it: a run
				// that fails or is killed leaves the old lock with the
				// old (or a healable) install.
				res, err := m.Install(c.Context, lock, c.Bool("force"), c.Bool("dry-run"))
				if err != nil {
					return err
				}
				// The lock records who signed what was installed.
				if !c.Bool("frozen") && !c.Bool("dry-run") && signersChanged(onDisk, lock) {
					write = true
				}
				if write {
					if err := lockfile.Write(m.LockPath(), lock); err != nil {
						return err
					}
				}
				return printChanges(e, res, lock)
			})
		},
	}
}

func addCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:  "add",
		Usage: "add skills to skills.yaml, then resolve, lock and install",
		UsageText: `skillpm add [options] NAME[@CONSTRAINT]...

Without a constraint, the newest version is added as ^VERSION.
Constraints use semver ranges: ^1.2, ~1.2.3, ">=1.0 <2", 1.x.

Examples:
  skillpm add pdf-tools
  skillpm add pdf-tools@^1.2 slugify@~1.0
  skillpm add -g release-notes      # into ~/.claude/skills and ~/.agents/skills`,
		Flags: append(projectFlags(),
			&cli.StringFlag{Name: "registry", Usage: "resolve these skills from `PREFIX` instead of the project default"},
			&cli.BoolFlag{Name: "force", Usage: "replace managed skills that have local edits"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrorf(c, "add needs at least one skill name")
			}
			m, err := openInstaller(e, c, true)
			if err != nil {
				return err
			}
			return withLock(c, m, func() error {
				prev, err := readPrevious(m)
				if err != nil {
					return err
				}
				var open []string // added without a constraint
				for _, arg := range c.Args().Slice() {
					d, err := parseWant(arg)
					if err != nil {
						return usageErrorf(c, "%v", err)
					}
					if d.explicit {
						m.Project.Set(d.name, d.constraint)
					} else {
						m.Project.Set(d.name, "*")
						open = append(open, d.name)
					}
					if r := c.String("registry"); r != "" {
						m.Project.SetRegistry(d.name, r)
					}
				}
				lock, _, err := m.Resolve(c.Context, manager.ResolveOptions{Previous: prev, Upgrade: open})
				if err != nil {
					return err
				}
				for _, n := range open {
					if s := lock.Find(n); s != nil {
						m.Project.Set(n, "^"+s.Version)
					}
				}
				lock.Inputs = m.Project.InputsDigest()
				return installAndSave(e, c, m, lock)
			})
		},
	}
}

func removeCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:    "remove",
		Aliases: []string{"rm", "uninstall"},
		Usage:   "remove skills from skills.yaml and from every target folder",
		UsageText: `skillpm remove [options] NAME...

Examples:
  skillpm remove pdf-tools
  skillpm remove -g release-notes`,
		Flags: append(projectFlags(),
			&cli.BoolFlag{Name: "force", Usage: "remove skills even if they have local edits (files you added are kept)"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return usageErrorf(c, "remove needs at least one skill name")
			}
			m, err := openInstaller(e, c, false)
			if err != nil {
				return err
			}
			return withLock(c, m, func() error {
				prev, err := readPrevious(m)
				if err != nil {
					return err
				}
				for _, n := range c.Args().Slice() {
					if !m.Project.Remove(n) {
						return &usageError{msg: fmt.Sprintf("%s is not in %s", n, m.Project.Path()), hint: "'skillpm list' shows the installed skills; dependencies go when nothing needs them"}
					}
				}
				lock, _, err := m.Resolve(c.Context, manager.ResolveOptions{Previous: prev})
				if err != nil {
					return err
				}
				return installAndSave(e, c, m, lock)
			})
		},
	}
}

func updateCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:    "update",
		Aliases: []string{"upgrade"},
		Usage:   "move skills to the newest versions skills.yaml allows",
		UsageText: `skillpm update [options] [NAME...]

Without names every skill is updated. Constraints in skills.yaml are kept.

Examples:
  skillpm update
  skillpm update pdf-tools`,
		Flags: append(projectFlags(),
			&cli.BoolFlag{Name: "force", Usage: "replace managed skills that have local edits"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would change, change nothing"},
		),
		Action: func(c *cli.Context) error {
			m, err := openInstaller(e, c, false)
			if err != nil {
				return err
			}
			return withLock(c, m, func() error {
				prev, err := readPrevious(m)
				if err != nil {
					return err
				}
				names := c.Args().Slice()
				for _, n := range names {
					if prev == nil || prev.Find(n) == nil {
						return &usageError{msg: fmt.Sprintf("%s is not in %s", n, m.LockPath()), hint: "add it with 'skillpm add " + n + "'"}
					}
				}
				lock, _, err := m.Resolve(c.Context, manager.ResolveOptions{Previous: prev, Upgrade: names, UpgradeAll: len(names) == 0})
				if err != nil {
					return err
				}
				res, err := m.Install(c.Context, lock, c.Bool("force"), c.Bool("dry-run"))
				if err != nil {
					return err
				}
				if !c.Bool("dry-run") {
					if err := lockfile.Write(m.LockPath(), lock); err != nil {
						return err
					}
				}
				return printChanges(e, res, lock)
			})
		},
	}
}

// readPrevious reads the lock add, remove and update start from. A lock
// resolved from the current skills.yaml must agree with it
// (manager.CheckLockFiles), or its versions and signers would carry an
// edit over; a stale one only hints which versions to keep, and the new
// lock is resolved and checked afresh.
func readPrevious(m *manager.Manager) (*lockfile.File, error) {
	prev, err := m.ReadLock()
	if err != nil || prev == nil || !m.Fresh(prev) {
		return prev, err
	}
	if err := m.CheckLockFiles(prev); err != nil {
		return nil, fmt.Errorf("%s: %w", m.LockPath(), err)
	}
	return prev, nil
}

// installAndSave installs lock, then writes skills.yaml and the lock: a run
// that fails before the targets match leaves both files as they were.
func installAndSave(e *env, c *cli.Context, m *manager.Manager, lock *lockfile.File) error {
	res, err := m.Install(c.Context, lock, c.Bool("force"), false)
	if err != nil {
		return err
	}
	if err := saveProject(m, lock); err != nil {
		return err
	}
	return printChanges(e, res, lock)
}
