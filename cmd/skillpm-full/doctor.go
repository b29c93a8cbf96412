package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/urfave/cli/v2"

	"github.com/skillpm/skillpm/doctor"
	"github.com/skillpm/skillpm/manager"
)

func doctorCommand(e *command.Env) *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check, per agent, that each sees exactly the locked skills; --fix repairs what is safe",
		UsageText: `skillpm doctor [options]

For every agent (named with --agent, else in skills.yaml's agents: and
those detected on this machine, else every agent that reads a target
folder) doctor lists the skills it will see, in its folder precedence, and
reports what is wrong: shadowed skills, skills it cannot see, broken or
escaping links, misnamed folders, SKILL.md files it would skip, stale install
records, local edits, and a skills.lock that does not match. It exits 0
only when every agent sees exactly the locked skills, else 15.

--fix removes links to nothing and reinstalls from skills.lock as it is (a
frozen install: skills.yaml and skills.lock are not changed), then checks
again. Folders skillpm did not install are never touched; local edits are
discarded only with --force.

Examples:
  skillpm doctor
  skillpm doctor -g                   # the user scope: ~/.claude/skills, ...
  skillpm doctor --agent cursor       # check one agent, set up here or not
  skillpm doctor --fix
  skillpm doctor --json`,
		Flags: append(command.ProjectFlags(),
			&cli.BoolFlag{Name: "fix", Usage: "repair what is safe: remove links to nothing, reinstall from skills.lock (frozen)"},
			&cli.BoolFlag{Name: "force", Usage: "with --fix, reinstall managed skills that have local edits, discarding the edits"},
			agentFlag("check agent `NAME` (repeatable; default: skills.yaml's agents: and detected agents)"),
		),
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return command.UsageErrorf(c, "doctor takes no arguments")
			}
			if c.Bool("force") && !c.Bool("fix") {
				return command.UsageErrorf(c, "--force goes with --fix")
			}
			ids, err := agentIDs(c)
			if err != nil {
				return err
			}
			m, err := openDoctor(e, c)
			if err != nil {
				return err
			}
			home, _ := os.UserHomeDir()
			opts := doctor.Options{User: c.Bool("global"), Agents: ids, Home: home}
			rep, err := doctor.Check(c.Context, m, opts)
			if err != nil {
				return err
			}
			var fixed []doctor.Action
			if c.Bool("fix") {
				if fixed, err = doctor.Fix(c.Context, m, rep, doctor.FixOptions{Force: c.Bool("force")}); err != nil {
					return err
				}
				if rep, err = doctor.Check(c.Context, m, opts); err != nil {
					return err
				}
			}
			if err := printDoctor(e, rep, fixed, c.Bool("fix")); err != nil {
				return err
			}
			if !rep.OK() {
				return &command.SilentError{Code: command.ExitDoctor}
			}
			return nil
		},
	}
}

// printDoctor writes the report: --json as documented in README.md
// ("doctor"), else a section per agent and one line per problem.
func printDoctor(e *command.Env, rep *doctor.Report, fixed []doctor.Action, fix bool) error {
	if e.JSON {
		out := struct {
			*doctor.Report
			OK    bool            `json:"ok"`
			Fixed []doctor.Action `json:"fixed,omitempty"`
		}{rep, rep.OK(), fixed}
		if fix && out.Fixed == nil {
			out.Fixed = []doctor.Action{}
		}
		return command.WriteJSON(e.Stdout, out)
	}
	w := e.Stdout
	for _, a := range fixed {
		mark := "fixed"
		if a.Failed {
			mark = "not fixed"
		} else if e.Quiet {
			continue
		}
		fmt.Fprintf(w, "%s: %s\n", mark, command.TermLine(a.Message))
	}
	if e.Quiet { // -q: only the problems
		for _, f := range rep.Findings {
			fmt.Fprintf(w, "[%s] %s\n", f.Kind, command.TermLine(f.String()))
		}
		return nil
	}
	locked := "no skills.lock"
	if len(rep.Locked) > 0 || len(rep.Findings) == 0 {
		locked = command.Plural(len(rep.Locked), "locked skill")
	}
	fmt.Fprintf(w, "%s %s: %s, %s checked\n", rep.Scope, command.TermLine(rep.Root), locked, command.Plural(len(rep.Agents), "agent"))
	for _, a := range rep.Agents {
		state := "ok"
		if !a.OK {
			state = "NEEDS ATTENTION"
		}
		fmt.Fprintf(w, "%s (%s; %s): sees %d of %d locked skills: %s\n", a.ID, a.Name, a.Why, len(rep.Locked)-len(a.Missing), len(rep.Locked), state)
		for _, s := range a.Sees {
			line := fmt.Sprintf("  %s %s from %s", command.TermLine(s.Skill), command.TermLine(command.OrDash(s.Version)), command.TermLine(s.Folder))
			if !s.Managed {
				line += " (not installed by skillpm)"
			}
			if len(s.Shadows) > 0 {
				line += ", hiding " + command.TermLine(strings.Join(s.Shadows, ", "))
			}
			fmt.Fprintln(w, line)
		}
		if len(a.Missing) > 0 {
			fmt.Fprintf(w, "  does not see: %s\n", command.TermLine(strings.Join(a.Missing, ", ")))
		}
	}
	if rep.OK() {
		fmt.Fprintln(w, "every agent sees exactly the locked skills")
		return nil
	}
	fmt.Fprintf(w, "%s:\n", command.Plural(len(rep.Findings), "problem"))
	for _, f := range rep.Findings {
		fmt.Fprintf(w, "  [%s] %s\n", f.Kind, command.TermLine(f.String()))
	}
	if n := rep.Repairable(false); !fix && n > 0 {
		fmt.Fprintf(w, "'skillpm doctor --fix' repairs %d of them\n", n)
	}
	return nil
}

// openDoctor opens the project: with --fix as install does (registries,
// trust policy), else offline, reading only the project flags; then an
// unreadable skills.lock fails the command.
func openDoctor(e *command.Env, c *cli.Context) (*manager.Manager, error) {
	if c.Bool("fix") {
		oo, err := readOpenOptions(c)
		if err != nil {
			return nil, err
		}
		oo.trust = true
		return openManager(e, oo)
	}
	po, err := command.ReadProjectOptions(c)
	if err != nil {
		return nil, err
	}
	m, err := openOffline(e, po)
	if err != nil {
		return nil, err
	}
	_, err = m.ReadLock()
	return m, err
}
