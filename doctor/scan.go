package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/skill"
)

// MaxEntries bounds how many entries of one discovery folder are read.
const MaxEntries = 10000

// folders returns every folder a checked agent reads, then the targets no
// agent reads, absolute, each once.
func (c *checker) folders() []string {
	var out []string
	for _, a := range c.agents {
		for _, d := range c.abs(a.Dirs(c.opts.User)) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	for _, t := range c.targets {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// scanFolders looks at every entry of every folder: links to nothing or
// out of the project, SKILL.md files that do not load, folders named
// other than their skill. Skill folders an agent would skip are
// remembered in c.skipped.
func (c *checker) scanFolders(ctx context.Context) error {
	for _, dir := range c.folders() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := c.m.Bounds().Check(dir); err != nil {
			c.add(Finding{Kind: KindEscapingLink, Agents: c.readers(dir), Folder: c.rel(dir), Path: dir, Message: err.Error(),
				Fix: "replace the link with a folder inside the project (agents follow it; skillpm will not)"})
			continue
		}
		if err := c.scanFolder(dir); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) scanFolder(dir string) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil // nothing there, or not a folder: agents find nothing either
	}
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	ents, err := f.ReadDir(MaxEntries + 1)
	f.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	if len(ents) > MaxEntries {
		return fmt.Errorf("read %s: more than %d entries; doctor stops there", dir, MaxEntries)
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	who, folder := c.readers(dir), c.rel(dir)
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			dest, _ := os.Readlink(p)
			if _, err := os.Stat(p); err != nil {
				why, repair, fix := "which does not exist", RepairUnlink, "'skillpm doctor --fix' removes the link (or point it at the skill folder)"
				switch {
				case errors.Is(err, fs.ErrPermission):
					// It may work for the agent's user: not Fix's to remove.
					why, repair, fix = "which skillpm may not read", "", "check the permissions of the folders it leads through"
				case !errors.Is(err, fs.ErrNotExist):
					why = "which cannot be followed (a loop of links?)"
				}
				c.skipped[p] = true
				c.add(Finding{Kind: KindBrokenLink, Agents: who, Folder: folder, Skill: name, Path: p, Repair: repair,
					Message: fmt.Sprintf("a link to %s, %s; agents skip it", dest, why), Fix: fix})
				continue
			}
			if err := c.m.Bounds().Check(p); err != nil {
				c.skipped[p] = true
				c.add(Finding{Kind: KindEscapingLink, Agents: who, Folder: folder, Skill: name, Path: p,
					Message: fmt.Sprintf("a link to %s, outside %s: agents load it, skillpm does not manage it", install.RealPath(p), c.root),
					Fix:     "copy the skill into the folder instead of linking it, or remove the link"})
				continue
			}
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		if _, err := os.Lstat(filepath.Join(p, skill.FileName)); err != nil {
			continue // not a skill folder: agents do not look at it
		}
		// A SKILL.md that is a FIFO, a device, a folder or a link to
		// one is a skill agents skip (or hang on): skill.Load refuses it
		// without opening it, and checkSkill reports it.
		c.checkSkill(who, folder, name, p)
	}
	return nil
}

// checkSkill loads one SKILL.md as an agent would, and records why an
// agent would skip it.
func (c *checker) checkSkill(who []string, folder, name, p string) {
	s, err := skill.Load(p)
	if err != nil {
		fix := "fix SKILL.md ('skillpm lint " + p + "' explains)"
		var se *skill.Error
		if errors.As(err, &se) && se.Fix != "" {
			fix = se.Fix
		}
		c.skipped[p] = true
		c.add(Finding{Kind: KindInvalid, Agents: who, Folder: folder, Skill: name, Path: filepath.Join(p, skill.FileName),
			Message: "SKILL.md does not load (" + err.Error() + "); agents skip it silently", Fix: fix})
		return
	}
	var missing []string
	if strings.TrimSpace(s.Name()) == "" {
		missing = append(missing, "name")
	}
	if strings.TrimSpace(s.Frontmatter.Description) == "" {
		missing = append(missing, "description")
	}
	if len(missing) > 0 {
		c.skipped[p] = true
		c.add(Finding{Kind: KindInvalid, Agents: who, Folder: folder, Skill: name, Path: filepath.Join(p, skill.FileName),
			Message: "SKILL.md has no " + strings.Join(missing, " or ") + "; agents skip it silently",
			Fix:     "add " + strings.Join(missing, " and ") + " to its frontmatter ('skillpm lint " + p + "')"})
		return
	}
	if s.Name() != name {
		c.skipped[p] = true
		c.add(Finding{Kind: KindNameMismatch, Agents: who, Folder: folder, Skill: name, Path: p,
			Message: fmt.Sprintf("the folder is named %q but its SKILL.md says name: %s; agents find skills by folder and skip it", name, s.Name()),
			Fix:     fmt.Sprintf("rename the folder to %q (or set 'name: %s'), or delete it if it is a stray copy", s.Name(), name)})
	}
}

// view is what agent a sees: install.Discover over its folders, less
// the skill folders it would skip, the last folder winning each name.
func (c *checker) view(a pickedAgent) AgentView {
	v := AgentView{ID: a.ID, Name: a.Name, Why: a.why, Folders: []string{}, Sees: []Seen{}, Missing: []string{}}
	var dirs []install.Dir
	scope := install.ScopeProject
	if c.opts.User {
		scope = install.ScopeUser
	}
	for _, r := range a.Dirs(c.opts.User) {
		abs := filepath.Join(c.root, r)
		v.Folders = append(v.Folders, c.rel(abs))
		if c.m.Bounds().Check(abs) != nil {
			continue // reported as escaping-link; not read through
		}
		dirs = append(dirs, install.Dir{Path: abs, Rel: c.rel(abs), Scope: scope, Bounds: c.m.Bounds()})
	}
	var entries []install.Entry
	for _, e := range install.Discover(dirs) {
		if !c.skipped[e.Path] {
			entries = append(entries, e)
		}
	}
	win := map[string]int{}
	for i, e := range entries {
		win[e.Name] = i
	}
	for i, e := range entries {
		if win[e.Name] != i {
			continue
		}
		s := Seen{Skill: e.Name, Folder: e.Root.Rel, Version: e.Version, Managed: e.Managed}
		var losers []install.Entry
		for _, o := range entries[:i] {
			if o.Name == e.Name {
				s.Shadows = append(s.Shadows, o.Root.Rel)
				losers = append(losers, o)
			}
		}
		l := c.locked(e.Name)
		s.Locked = l != nil
		v.Sees = append(v.Sees, s)
		c.judge(a, e, losers, l != nil, lockedVersion(c, e.Name))
	}
	slices.SortFunc(v.Sees, func(x, y Seen) int { return strings.Compare(x.Skill, y.Skill) })
	if c.lock != nil {
		for _, l := range c.lock.Skills {
			if !slices.ContainsFunc(v.Sees, func(s Seen) bool { return s.Skill == l.Name }) {
				v.Missing = append(v.Missing, l.Name)
			}
		}
	}
	return v
}

func lockedVersion(c *checker, name string) string {
	if l := c.locked(name); l != nil {
		return l.Version
	}
	return ""
}

// locked returns the lock's entry for name; nil without a lock.
func (c *checker) locked(name string) *lockfile.Skill {
	if c.lock == nil {
		return nil
	}
	return c.lock.Find(name)
}

// judge records what is wrong with the copy of a skill agent a sees.
// Managed copies in target folders are install.Status's (checkTargets).
func (c *checker) judge(a pickedAgent, e install.Entry, losers []install.Entry, locked bool, version string) {
	dir := e.Root.Path
	target := slices.Contains(c.targets, dir)
	f := Finding{Agents: []string{a.ID}, Folder: e.Root.Rel, Skill: e.Name, Path: e.Path}
	switch {
	case !e.Managed && locked:
		f.Kind = KindShadowed
		var managed []string
		for _, o := range losers {
			if o.Managed {
				managed = append(managed, o.Root.Rel)
			}
		}
		if len(managed) > 0 {
			f.Message = fmt.Sprintf("a folder skillpm did not install hides the locked %s %s in %s", e.Name, version, strings.Join(managed, ", "))
		} else {
			f.Message = fmt.Sprintf("a folder skillpm did not install takes the name of the locked %s %s", e.Name, version)
		}
		f.Fix = fmt.Sprintf("move %s out of %s (or delete it), then run 'skillpm doctor --fix'", e.Name, e.Root.Rel)
	case !e.Managed:
		f.Kind = KindUnlocked
		f.Message = "a skill skills.lock does not list (not installed by skillpm)"
		f.Fix = fmt.Sprintf("publish it and 'skillpm add' it, or move it out of %s", e.Root.Rel)
	case !target && (!locked || e.Version != version):
		f.Kind = KindStaleRecord
		f.Message = fmt.Sprintf("installed by skillpm (%s) in a folder skills.yaml no longer installs into", e.Version)
		if locked {
			f.Message += "; the lock wants " + version
		}
		f.Fix = fmt.Sprintf("delete %s and its entry in %s/%s, or add the folder back to skills.yaml (targets: or agents:)", e.Path, e.Root.Rel, install.RecordName)
	default:
		return
	}
	c.add(f)
}

// catchAll makes sure every locked skill an agent does not see is
// explained: when no finding names the agent and the skill, the skill is
// installed only where the agent does not look (or nowhere).
func (c *checker) catchAll(r *Report) {
	for _, v := range r.Agents {
		for _, name := range v.Missing {
			if slices.ContainsFunc(c.found, func(f Finding) bool {
				return f.Skill == name && slices.Contains(f.Agents, v.ID)
			}) {
				continue
			}
			var where []string
			for _, t := range c.targets {
				if fi, err := os.Stat(filepath.Join(t, name, skill.FileName)); err == nil && fi.Mode().IsRegular() {
					where = append(where, c.rel(t))
				}
			}
			f := Finding{Kind: KindNotVisible, Agents: []string{v.ID}, Folder: strings.Join(v.Folders, ", "), Skill: name,
				Fix: fmt.Sprintf("add %s to agents: in skills.yaml and run 'skillpm install' ('skillpm install --agent %s' installs for it once)", v.ID, v.ID)}
			if len(where) > 0 {
				f.Message = fmt.Sprintf("%s does not see it: it is installed only in %s, which %s does not read", v.Name, strings.Join(where, ", "), v.Name)
			} else {
				f.Message = fmt.Sprintf("%s does not see it: it is not installed in any folder %s reads", v.Name, v.Name)
			}
			c.add(f)
		}
	}
}
