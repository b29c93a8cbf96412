package main

import (
	"strings"

	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/internal/command"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/skill"
	"github.com/urfave/cli/v2"
)

func installCommand(e *command.Env) *cli.Command {
	cmd := command.InstallSpec()
	cmd.Action = func(c *cli.Context) error {
		if c.NArg() > 0 {
			return command.UsageErrorf(c, "install takes no arguments; to add a skill use 'skillpm add %s'", c.Args().First())
		}
		from := c.String("from")
		agents, err := agentIDs(c)
		if err != nil {
			return err
		}
		oo, err := readOpenOptions(c)
		if err != nil {
			return err
		}
		oo.trust, oo.bundle, oo.lazy = true, from, true
		// A run that changes nothing leaves a stamp for the front to
		// answer the next identical one with (internal/command/warm.go).
		warm := command.StartWarm(e, e.Args, oo.project.Dir)
		m, err := openManager(e, oo)
		if err != nil {
			warm.Finish(false, command.WarmOptions{})
			return err
		}
		if err := runAgents(m, agents, c.Bool("global")); err != nil {
			warm.Finish(false, command.WarmOptions{})
			return err
		}
		res, err := m.Install(c.Context, manager.InstallOptions{
			Frozen:      c.Bool("frozen"),
			RequireLock: from != "", // a bundle cannot resolve
			Force:       c.Bool("force"),
			DryRun:      c.Bool("dry-run"),
		})
		if err != nil {
			warm.Finish(false, command.WarmOptions{})
			return err
		}
		err = printChanges(e, res)
		t := m.TargetOptions()
		warm.Finish(err == nil && warmNoop(m, res), command.WarmOptions{Targets: t.Targets, Owner: t.Owner, Bounds: t.Bounds,
			RecordMemo: t.RecordMemo, LockMemo: m.LockMemoDir})
		return err
	}
	return cmd
}

// warmNoop reports whether an install changed and wrote nothing, and read
// nothing a warm stamp does not cover: no local folder source (its files
// may change under an unchanged lock), no trust policy (its signature
// checks are the full program's).
func warmNoop(m *manager.Manager, res *manager.Result) bool {
	if res.LockWritten || res.ProjectWritten || m.Trust != nil {
		return false
	}
	for _, ch := range res.Changes {
		if ch.Action != install.ActionUnchanged {
			return false
		}
	}
	for _, w := range m.Project.Skills {
		if w.Kind() == project.KindLocal {
			return false
		}
	}
	return true
}

func addCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "add",
		Usage: "add skills to skills.yaml, then resolve, lock and install",
		UsageText: `skillpm add [options] NAME[@CONSTRAINT]|REF|SOURCE...

Without a constraint, the newest version is added as ^VERSION.
Constraints use semver ranges: ^1.2, ~1.2.3, ">=1.0 <2", 1.x.
REF is a repository (registry.example.com/org/skills/pdf[:TAG|@RANGE],
oci:PATH): its skill is added from there (a tag as that exact version).
A collection's REF ('publish --collection') adds each of its skills from
its own repository at the version the collection pins.
SOURCE is a git repository (github.com/OWNER/REPO[/FOLDER][@REF], an
https://…/REPO.git, git+https://, ssh://, git@HOST:PATH or file:// URL),
a well-known origin (https://ORIGIN[/PATH] serving
/.well-known/agent-skills/index.json; an https:// URL without one is read
as git) or a ./folder of the project; a repository or origin holding
several skills needs --skill or --all.

Examples:
  skillpm add pdf-tools
  skillpm add pdf-tools@^1.2 slugify@~1.0
  skillpm add ghcr.io/acme/skills/pdf-tools:1.2.0
  skillpm add ghcr.io/acme/collections/starter:1.0.0
  skillpm add github.com/anthropics/skills --skill pdf --skill docx
  skillpm add github.com/acme/skills/skills/pdf@main
  skillpm add ./skills/dev
  skillpm add https://example.com/docs --skill brand
  skillpm add -g release-notes      # into ~/.claude/skills and ~/.agents/skills
  skillpm add --agent codex --agent claude-code pdf-tools   # agents: [codex, claude-code] in skills.yaml`,
		Flags: append(command.ProjectFlags(),
			&cli.StringFlag{Name: "registry", Usage: "resolve these skills from `PREFIX` instead of the project default"},
			&cli.StringSliceFlag{Name: "skill", Usage: "add the skill `NAME` of a repository that holds several (repeatable)"},
			&cli.BoolFlag{Name: "all", Usage: "add every skill of a repository"},
			&cli.BoolFlag{Name: "force", Usage: "replace managed skills that have local edits"},
			agentFlag("install for agent `NAME` (repeatable); recorded in skills.yaml's agents: when it changes the folders skills install into"),
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return command.UsageErrorf(c, "add needs at least one skill name")
			}
			agents, err := agentIDs(c)
			if err != nil {
				return err
			}
			opts := manager.AddOptions{Registry: c.String("registry"), Force: c.Bool("force")}
			oo, err := readOpenOptions(c)
			if err != nil {
				return err
			}
			var unannounced bool // a new project's default registry (registryNote)
			oo.create, oo.trust, oo.quietDefault = true, true, &unannounced
			m, err := openManager(e, oo)
			if err != nil {
				return err
			}
			var refs []string // OCI references (addref.go), expanded below
			for _, arg := range c.Args().Slice() {
				if isSourceArg(arg) {
					ws, err := sourceWants(c.Context, c, e, m, arg)
					if err != nil {
						return err
					}
					opts.Skills = append(opts.Skills, ws...)
					continue
				}
				if ociRefArg(arg) {
					refs = append(refs, arg)
					continue
				}
				w, err := parseWant(arg)
				if err != nil {
					return command.UsageErrorf(c, "%v", err)
				}
				opts.Skills = append(opts.Skills, w)
			}
			for _, r := range refs {
				ws, err := wantsFromRef(c, e, m, r)
				if err != nil {
					return err
				}
				opts.Skills = append(opts.Skills, ws...)
			}
			if unannounced && opts.Registry == "" && slices.ContainsFunc(opts.Skills, func(w manager.Want) bool { return w.Source == nil && w.Registry == "" }) {
				registryNote(e)
			}
			if len(agents) > 0 {
				opts.Edit = func(*project.Manifest) error { return recordAgents(m, agents, c.Bool("global")) }
			}
			res, err := m.Add(c.Context, opts)
			if err != nil {
				return err
			}
			return printChanges(e, res)
		},
	}
}

// parseWant reads NAME or NAME@CONSTRAINT from the command line; an
// empty constraint after @ is none.
func parseWant(arg string) (manager.Want, error) {
	d, err := skill.ParseDependency(arg)
	if err != nil {
		return manager.Want{}, err
	}
	_, c, _ := strings.Cut(arg, "@")
	return manager.Want{Name: d.Name, Constraint: strings.TrimSpace(c)}, nil
}

func removeCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:    "remove",
		Aliases: []string{"rm", "uninstall"},
		Usage:   "remove skills from skills.yaml and from every target folder",
		UsageText: `skillpm remove [options] NAME...

Examples:
  skillpm remove pdf-tools
  skillpm remove -g release-notes`,
		Flags: append(command.ProjectFlags(),
			&cli.BoolFlag{Name: "force", Usage: "remove skills even if they have local edits (files you added are kept)"},
		),
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return command.UsageErrorf(c, "remove needs at least one skill name")
			}
			oo, err := readOpenOptions(c)
			if err != nil {
				return err
			}
			oo.trust = true
			m, err := openManager(e, oo)
			if err != nil {
				return err
			}
			res, err := m.Remove(c.Context, manager.RemoveOptions{Names: c.Args().Slice(), Force: c.Bool("force")})
			if err != nil {
				return err
			}
			return printChanges(e, res)
		},
	}
}

func updateCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:    "update",
		Aliases: []string{"upgrade"},
		Usage:   "move skills to the newest versions skills.yaml allows",
		UsageText: `skillpm update [options] [NAME...]

Without names every skill is updated. Constraints in skills.yaml are kept.

Examples:
  skillpm update
  skillpm update pdf-tools`,
		Flags: append(command.ProjectFlags(),
			&cli.BoolFlag{Name: "force", Usage: "replace managed skills that have local edits"},
			&cli.BoolFlag{Name: "dry-run", Usage: "print what would change, change nothing"},
		),
		Action: func(c *cli.Context) error {
			oo, err := readOpenOptions(c)
			if err != nil {
				return err
			}
			oo.trust = true
			m, err := openManager(e, oo)
			if err != nil {
				return err
			}
			res, err := m.Update(c.Context, manager.UpdateOptions{Names: c.Args().Slice(), Force: c.Bool("force"), DryRun: c.Bool("dry-run")})
			if err != nil {
				return err
			}
			return printChanges(e, res)
		},
	}
}
