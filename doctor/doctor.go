// Package doctor checks, per agent, which skills each agent will see in a
// project (or in the user scope) against what skills.lock pins: skills an
// agent sees, shadows, skills it cannot see, broken or escaping links,
// folders whose name differs from their skill's, SKILL.md files an agent
// would silently skip, stale install records, and a lock that does not
// match skills.yaml or the installed files. [Fix] repairs what is safe.
//
// It reads through the same code the installer uses (install.Status,
// install.Discover, manager.Manager's lock checks); it adds only the
// per-agent view (agent.Programs) and the folder scan.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
)

// Kind names what a finding is about. The values are part of the --json
// output and do not change meaning.
type Kind string

// Kinds of finding.
const (
	KindLockMissing  Kind = "lock-missing"  // skills.yaml lists skills, there is no skills.lock
	KindLockStale    Kind = "lock-stale"    // skills.lock was resolved from another skills.yaml
	KindLockMismatch Kind = "lock-mismatch" // skills.lock is invalid or disagrees with skills.yaml
	KindBadRecord    Kind = "bad-record"    // an install record skillpm will not trust
	KindEscapingLink Kind = "escaping-link" // a folder or skill link leading out of the project
	KindBrokenLink   Kind = "broken-link"   // a link to nothing in a folder an agent reads
	KindInvalid      Kind = "invalid-skill" // a SKILL.md an agent would silently skip
	KindNameMismatch Kind = "name-mismatch" // a folder named other than its skill
	KindModified     Kind = "modified"      // a managed skill edited since it was installed
	KindOutdated     Kind = "outdated"      // a managed skill at another version than the lock's
	KindNotInstalled Kind = "not-installed" // a locked skill missing from a target folder
	KindStaleRecord  Kind = "stale-record"  // a record naming a deleted folder, or a skill no longer locked
	KindShadowed     Kind = "shadowed"      // a folder skillpm did not install takes a locked skill's place
	KindNotVisible   Kind = "not-visible"   // a locked skill installed only where an agent does not look
	KindUnlocked     Kind = "unlocked"      // an agent sees a skill skills.lock does not list
)

// Repair says how Fix repairs a finding; "" is not automatically.
type Repair string

// Repairs.
const (
	// RepairUnlink removes a link to nothing.
	RepairUnlink Repair = "unlink"
	// RepairReinstall installs skills.lock as is (a frozen install).
	RepairReinstall Repair = "reinstall"
	// RepairReinstallForce does the same, discarding local edits: Fix
	// does it only when told to (FixOptions.Force).
	RepairReinstallForce Repair = "reinstall-force"
)

// Finding is one problem. Every finding names the agents it affects, the
// folder and the skill where it has them, and the fix.
type Finding struct {
	Kind Kind `json:"kind"`
	// Agents are the IDs of the checked agents that read the folder
	// (empty for skills.lock's findings).
	Agents []string `json:"agents"`
	// Folder is the discovery folder as configured: ".claude/skills",
	// or "~/.claude/skills" in the user scope.
	Folder string `json:"folder,omitempty"`
	Skill  string `json:"skill,omitempty"`
	// Path is the absolute path of the file or folder concerned.
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	Repair  Repair `json:"repair,omitempty"`
}

// String is the finding as one line: agents, folder/skill, what, and the fix.
func (f Finding) String() string {
	who := "skills.lock"
	if len(f.Agents) > 0 {
		who = strings.Join(f.Agents, ", ")
	} else if f.Folder != "" {
		who = "no checked agent reads it"
	}
	where := f.Folder
	if f.Skill != "" && where != "" {
		where += "/" + f.Skill
	} else if f.Skill != "" {
		where = f.Skill
	}
	if where != "" {
		where += ": "
	}
	return fmt.Sprintf("%s: %s%s; fix: %s", who, where, f.Message, f.Fix)
}

// Seen is a skill an agent sees: the folder that wins its name.
type Seen struct {
	Skill   string `json:"skill"`
	Folder  string `json:"folder"`
	Version string `json:"version,omitempty"` // for managed skills
	Managed bool   `json:"managed"`
	Locked  bool   `json:"locked"` // skills.lock lists the name
	// Shadows are the folders whose copy of the skill this one hides.
	Shadows []string `json:"shadows,omitempty"`
}

// AgentView is what one agent will see.
type AgentView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Why it was checked: "--agent", "skills.yaml", "detected" or
	// "reads a target".
	Why string `json:"why"`
	// Folders are the folders it reads, in its precedence order.
	Folders []string `json:"folders"`
	Sees    []Seen   `json:"sees"`
	// Missing are the locked skills it does not see.
	Missing []string `json:"missing"`
	// OK is true when it sees exactly the locked skills, as installed.
	OK bool `json:"ok"`
}

// Report is the result of Check.
type Report struct {
	Scope    string      `json:"scope"` // "project" or "user"
	Root     string      `json:"root"`  // the project folder, or the home folder
	Locked   []string    `json:"locked"`
	Agents   []AgentView `json:"agents"`
	Findings []Finding   `json:"findings"`
}

// OK reports whether every agent sees exactly the locked skills and
// nothing is wrong.
func (r *Report) OK() bool { return len(r.Findings) == 0 }

// Options say what Check looks at.
type Options struct {
	// User checks the user scope: the agents' user folders under the
	// manager's Root (the home folder).
	User bool
	// Agents are the agent IDs to check. Empty: those skills.yaml's
	// agents: names and those detected on this machine, else every agent
	// that reads a target folder.
	Agents []string
	// Detect reports whether an agent is set up here; nil uses
	// agent.Program.Detected with Home.
	Detect func(agent.Program) bool
	// Home is the home folder for detection.
	Home string
}

// checker holds one Check's state.
type checker struct {
	m       *manager.Manager
	opts    Options
	root    string
	lock    *lockfile.File
	targets []string
	agents  []pickedAgent
	found   []Finding
	seen    map[string]int  // finding keys, to report each once: index in found
	skipped map[string]bool // skill folders agents skip (invalid, misnamed, escaping)
}

type pickedAgent struct {
	agent.Program
	why string
}

// Check inspects the scope m works on. It changes nothing. An error is
// returned only when the check itself cannot go on (an unknown agent, a
// folder that cannot be read); everything about the skills is a finding.
func Check(ctx context.Context, m *manager.Manager, opts Options) (*Report, error) {
	c := &checker{m: m, opts: opts, root: m.Bounds().Root, targets: m.TargetDirs(), seen: map[string]int{}, skipped: map[string]bool{}}
	if err := c.pickAgents(); err != nil {
		return nil, err
	}
	c.checkLock()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := c.scanFolders(ctx); err != nil {
		return nil, err
	}
	if err := c.checkTargets(); err != nil {
		return nil, err
	}
	r := &Report{Scope: "project", Root: c.root, Locked: []string{}, Agents: []AgentView{}}
	if opts.User {
		r.Scope = "user"
	}
	if c.lock != nil {
		for _, s := range c.lock.Skills {
			r.Locked = append(r.Locked, s.Name)
		}
	}
	for _, a := range c.agents {
		r.Agents = append(r.Agents, c.view(a))
	}
	c.catchAll(r)
	sort.SliceStable(c.found, func(i, j int) bool {
		a, b := c.found[i], c.found[j]
		if (a.Folder == "") != (b.Folder == "") {
			return a.Folder == "" // skills.lock first
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Kind < b.Kind
	})
	r.Findings = append([]Finding{}, c.found...)
	for i := range r.Agents {
		r.Agents[i].OK = len(r.Agents[i].Missing) == 0 && !slices.ContainsFunc(r.Findings, func(f Finding) bool {
			return slices.Contains(f.Agents, r.Agents[i].ID)
		})
	}
	return r, nil
}

// pickAgents chooses the agents to check (Options.Agents).
func (c *checker) pickAgents() error {
	if len(c.opts.Agents) > 0 {
		for _, id := range c.opts.Agents {
			p, err := agent.LookupProgram(id)
			if err != nil {
				return err
			}
			c.agents = append(c.agents, pickedAgent{p, "--agent"})
		}
		return nil
	}
	detect := c.opts.Detect
	if detect == nil {
		detect = func(p agent.Program) bool { return p.Detected(c.opts.Home) }
	}
	for _, p := range agent.Programs {
		switch {
		case slices.Contains(c.m.Project.Agents, p.ID):
			c.agents = append(c.agents, pickedAgent{p, "skills.yaml"})
		case detect(p):
			c.agents = append(c.agents, pickedAgent{p, "detected"})
		}
	}
	if len(c.agents) > 0 {
		return nil
	}
	for _, p := range agent.Programs {
		if slices.ContainsFunc(c.targets, func(t string) bool { return slices.Contains(c.abs(p.Dirs(c.opts.User)), t) }) {
			c.agents = append(c.agents, pickedAgent{p, "reads a target"})
		}
	}
	return nil
}

// abs makes folders relative to the scope's root absolute.
func (c *checker) abs(rels []string) []string {
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = filepath.Join(c.root, r)
	}
	return out
}

// rel is an absolute folder as the user configured it.
func (c *checker) rel(dir string) string {
	r, err := filepath.Rel(c.root, dir)
	if err != nil || strings.HasPrefix(r, "..") {
		return dir
	}
	r = filepath.ToSlash(r)
	if c.opts.User {
		return "~/" + r
	}
	return r
}

// readers are the checked agents that read the absolute folder dir.
func (c *checker) readers(dir string) []string {
	out := []string{}
	for _, a := range c.agents {
		if slices.Contains(c.abs(a.Dirs(c.opts.User)), dir) {
			out = append(out, a.ID)
		}
	}
	return out
}

// add records a finding once per kind, path and skill; the agents of a
// repeat join the first.
func (c *checker) add(f Finding) {
	key := string(f.Kind) + "\x00" + f.Path + "\x00" + f.Skill + "\x00" + f.Folder
	if i, ok := c.seen[key]; ok {
		for _, a := range f.Agents {
			if !slices.Contains(c.found[i].Agents, a) {
				c.found[i].Agents = append(c.found[i].Agents, a)
			}
		}
		return
	}
	c.seen[key] = len(c.found)
	if f.Agents == nil {
		f.Agents = []string{}
	}
	c.found = append(c.found, f)
}

// checkLock reads skills.lock and checks it against skills.yaml
// (manager.Manager.Fresh and CheckLockFiles).
func (c *checker) checkLock() {
	lockPath := c.m.LockPath()
	lock, err := c.m.ReadLock()
	switch {
	case err != nil:
		c.add(Finding{Kind: KindLockMismatch, Path: lockPath, Message: err.Error(),
			Fix: "skills.lock is written only by skillpm: restore it (git checkout -- skills.lock) or delete it and run 'skillpm install'"})
		return
	case lock == nil:
		if len(c.m.Project.Skills) > 0 {
			c.add(Finding{Kind: KindLockMissing, Path: lockPath, Message: "skills.yaml lists skills but there is no skills.lock",
				Fix: "run 'skillpm install', which resolves, writes skills.lock and installs"})
		}
		return
	}
	c.lock = lock
	if !c.m.Fresh(lock) {
		c.add(Finding{Kind: KindLockStale, Path: lockPath, Message: "skills.lock was resolved from another skills.yaml",
			Fix: "run 'skillpm install', which re-resolves what changed and installs"})
		return
	}
	if err := c.m.CheckLockFiles(lock); err != nil {
		c.add(Finding{Kind: KindLockMismatch, Path: lockPath, Message: err.Error(),
			Fix: "skills.lock is written only by skillpm: find who changed it (git log -p skills.lock), restore it, or delete it and run 'skillpm install'"})
	}
}

// checkTargets compares each target's managed skills with their record
// and with skills.lock, through install.Status.
func (c *checker) checkTargets() error {
	for _, t := range c.targets {
		rows, err := install.Status([]string{t}, c.lock, c.m.InstallOwner(), c.m.Bounds())
		var oe *install.OutsideError
		switch {
		case errors.As(err, &oe):
			c.add(Finding{Kind: KindEscapingLink, Agents: c.readers(t), Folder: c.rel(t), Path: t, Message: err.Error(),
				Fix: "replace the link with a folder inside the project, or allow its destination with allow_target_outside in the user config"})
			continue
		case errors.Is(err, install.ErrBadRecord):
			c.add(Finding{Kind: KindBadRecord, Agents: c.readers(t), Folder: c.rel(t), Path: filepath.Join(t, install.RecordName), Message: err.Error(),
				Fix: "restore the record (git checkout), or delete it and run 'skillpm install', which adopts folders holding the locked content"})
			continue
		case err != nil:
			return fmt.Errorf("check %s: %w", t, err)
		}
		for _, s := range rows {
			c.addStatus(t, s)
		}
	}
	return nil
}

// addStatus turns one install.Status row into a finding.
func (c *checker) addStatus(t string, s install.SkillStatus) {
	f := Finding{Agents: c.readers(t), Folder: c.rel(t), Skill: s.Name, Path: filepath.Join(t, s.Name)}
	switch s.State {
	case install.StateOK:
		// Status compares manifest digests; a lock edited to name another
		// version of the same manifest is caught here.
		if l := c.locked(s.Name); l != nil && l.Version != s.Version {
			f.Kind = KindLockMismatch
			f.Message = fmt.Sprintf("skills.lock says %s %s, but its manifest %s is the installed %s", s.Name, l.Version, l.Manifest, s.Version)
			f.Fix = "skills.lock is written only by skillpm: find who changed it (git log -p skills.lock) and restore it, or delete it and run 'skillpm install'"
			c.add(f)
		}
		return
	case install.StateModified:
		f.Kind, f.Repair = KindModified, RepairReinstallForce
		f.Message = "edited since skillpm installed " + s.Version + " (" + s.Detail + ")"
		f.Fix = "keep the edits elsewhere, then 'skillpm doctor --fix --force' (or 'skillpm install --force') reinstalls the locked version"
	case install.StateOutdated:
		f.Kind, f.Repair = KindOutdated, RepairReinstall
		f.Message = "installed " + s.Version + "; " + s.Detail
		f.Fix = "'skillpm doctor --fix' (or 'skillpm install --frozen') installs the locked version"
		if l := c.locked(s.Name); l != nil && l.Version == s.Version {
			f.Message = fmt.Sprintf("the installed %s is not the manifest skills.lock pins for it (%s): republished, or skills.lock edited", s.Version, l.Manifest)
			f.Fix = "'skillpm doctor --fix' installs the pinned manifest; if the registry does not have it, restore skills.lock (git checkout -- skills.lock)"
		}
	case install.StateNotInstalled:
		f.Kind, f.Repair = KindNotInstalled, RepairReinstall
		f.Message = "locked at " + s.Version + " but not installed here"
		f.Fix = "'skillpm doctor --fix' (or 'skillpm install --frozen') installs it"
	case install.StateMissing:
		f.Kind, f.Repair = KindStaleRecord, RepairReinstall
		f.Message = "the install record lists " + s.Version + " but the folder is gone"
		f.Fix = "'skillpm doctor --fix' (or 'skillpm install --frozen') restores it"
	case install.StateExtra:
		f.Kind, f.Repair = KindStaleRecord, RepairReinstall
		f.Message = "installed by skillpm (" + s.Version + ") but no longer in skills.lock"
		f.Fix = "'skillpm doctor --fix' (or 'skillpm install --frozen') removes it"
	default:
		f.Kind, f.Message, f.Fix = KindModified, string(s.State)+": "+s.Detail, "run 'skillpm install'"
	}
	if c.lock != nil && c.lockBroken() && f.Repair != "" {
		f.Fix = "first fix skills.lock (see above), then run 'skillpm install'"
		f.Repair = ""
	}
	c.add(f)
}

// lockBroken reports whether a finding says skills.lock cannot be
// installed as is.
func (c *checker) lockBroken() bool {
	return slices.ContainsFunc(c.found, func(f Finding) bool {
		return f.Kind == KindLockMismatch || f.Kind == KindLockStale || f.Kind == KindLockMissing
	})
}
