package command

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/project"
	"github.com/urfave/cli/v2"
)

// OpenScope loads the project for commands that need no registry: its
// skills.yaml, its targets and their bounds, and the cache folders its
// lock and records are remembered in.
func OpenScope(e *Env, po ProjectOptions) (*project.Scope, error) {
	p, err := project.LoadMemo(po.Dir, MemoDir("manifests"))
	if err != nil {
		return nil, err
	}
	s := &project.Scope{Project: p, LockMemoDir: MemoDir("locks"), RecordMemoDir: MemoDir("records")}
	if err := SetScope(e, po, s); err != nil {
		return nil, err
	}
	return s, nil
}

// SetScope points s at the user scope's folders with -g, and sets where
// its targets may resolve to: inside the project (the home folder with
// -g), or inside a folder the user config's allow_target_outside lists.
func SetScope(e *Env, po ProjectOptions, s *project.Scope) error {
	cfg, err := e.UserConfig()
	if err != nil {
		return err
	}
	s.AllowOutside = cfg.AllowTargetOutside
	if !po.Global {
		return nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	s.Targets = nil
	for _, t := range s.Project.UserTargets() { // agents: in the user scope's skills.yaml
		s.Targets = append(s.Targets, filepath.Join(home, t))
	}
	s.Owner, s.Root = "user", home
	return nil
}

// MemoDir is the cache folder where decoded files of one kind are
// remembered by the digest of their bytes (internal/memo): "locks"
// (lockfile.ReadMemo), "manifests" (project.LoadMemo), "records"
// (install.Options.RecordMemo). "" without a cache folder.
func MemoDir(kind string) string {
	d, err := CacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, kind)
}

func StatusCommand(e *Env) *cli.Command {
	return &cli.Command{
		Name:  "status",
		Usage: "show managed skills that were edited, are missing, or differ from the lock",
		UsageText: `skillpm status [options]

Examples:
  skillpm status
  skillpm status --json`,
		Flags: ProjectFlags(),
		Action: func(c *cli.Context) error {
			po, err := ReadProjectOptions(c)
			if err != nil {
				return err
			}
			s, err := OpenScope(e, po)
			if err != nil {
				return err
			}
			res, err := s.Status(c.Context)
			if err != nil {
				return err
			}
			return printStatus(e, s.Project.Dir(), res)
		},
	}
}

// printStatus prints the skills that need attention, folders relative to
// the project folder dir, and a count.
func printStatus(e *Env, dir string, res *project.StatusResult) error {
	if e.JSON {
		return WriteJSON(e.Stdout, map[string]any{"fresh": res.Fresh, "skills": NonNil(res.Skills)})
	}
	if res.Lock != nil && !res.Fresh {
		fmt.Fprintf(e.Stdout, "skills.lock is out of date with skills.yaml: run 'skillpm install'\n")
	}
	clean := 0
	for _, s := range res.Skills {
		state := string(s.State)
		switch {
		case s.State == install.StateOK && s.Claimed == "":
			clean++
			continue
		case s.State == install.StateOK:
			state = "unchecked" // the record alone vouches for it
		}
		fmt.Fprintf(e.Stdout, "%-9s %s (%s)\n", state, TermLine(filepath.Join(RelTo(dir, s.Target), s.Name)), TermLine(s.Detail))
	}
	if !e.Quiet {
		fmt.Fprintf(e.Stdout, "%d managed skills as installed, %d need attention\n", clean, len(res.Skills)-clean)
	}
	return nil
}
