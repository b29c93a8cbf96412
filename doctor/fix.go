package doctor

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/manager"
)

// FixOptions say how far Fix may go.
type FixOptions struct {
	// Force lets the reinstall discard local edits to managed skills
	// (RepairReinstallForce); without it they are left and reported.
	Force bool
}

// Action is one thing Fix did, or tried and could not do.
type Action struct {
	Repair Repair `json:"repair"`
	Path   string `json:"path,omitempty"`
	Skill  string `json:"skill,omitempty"`
	// Message says what was done, or why not.
	Message string `json:"message"`
	// Failed is true when the repair was not made (tried and failed, or
	// left undone on purpose).
	Failed bool `json:"failed,omitempty"`
}

// Fix repairs what r found that is safe to repair: it removes links to
// nothing in the folders agents read, then, in each target folder where a
// managed skill is missing, outdated, no longer locked (or edited, with
// Force), installs skills.lock as is through m (a frozen install: nothing
// but those folders is written, and the trust policy m carries applies).
// A target the install would refuse (local edits without Force, a folder
// skillpm did not make under a locked name) is left whole, and said so.
// Fix never touches a folder skillpm did not install, nor skills.yaml or
// skills.lock. Run Check again to see what is left. The error is only
// for an interrupted run; a repair not made is an Action with Failed.
func Fix(ctx context.Context, m *manager.Manager, r *Report, opts FixOptions) ([]Action, error) {
	var out []Action
	need := map[string]bool{}    // target folders a reinstall repairs
	blocked := map[string]bool{} // target folders a frozen install would refuse
	for _, f := range r.Findings {
		dir := filepath.Dir(f.Path)
		switch f.Repair {
		case RepairUnlink:
			a := unlink(f)
			out = append(out, a)
			// A managed skill's folder that was a link to nothing is now
			// missing: the reinstall restores it.
			if !a.Failed && slices.Contains(r.Locked, f.Skill) {
				need[dir] = true
			}
		case RepairReinstall:
			need[dir] = true
		case RepairReinstallForce:
			if opts.Force {
				need[dir] = true
				continue
			}
			blocked[dir] = true
			out = append(out, Action{Repair: f.Repair, Path: f.Path, Skill: f.Skill, Failed: true,
				Message: fmt.Sprintf("left %s/%s as it is: it has local edits (--force discards them), so %s is not reinstalled", f.Folder, f.Skill, f.Folder)})
		case "":
			if f.Kind == KindShadowed && slices.Contains(m.TargetDirs(), dir) {
				blocked[dir] = true // install refuses to overwrite a folder it did not make
			}
		}
	}
	var targets []string
	for _, t := range m.TargetDirs() {
		if need[t] && !blocked[t] {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return out, nil
	}
	saved := m.Targets
	m.Targets = targets
	res, err := m.Install(ctx, manager.InstallOptions{Frozen: true, Force: opts.Force})
	m.Targets = saved
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return out, err
	}
	if err != nil {
		return append(out, Action{Repair: RepairReinstall, Failed: true, Message: "reinstalling from skills.lock failed: " + err.Error()}), nil
	}
	for _, c := range res.Changes {
		if c.Action == install.ActionUnchanged {
			continue
		}
		what := string(c.Action)
		switch c.Action {
		case install.ActionRemove:
			what = "removed"
		case install.ActionRepair:
			what = "repaired"
		case install.ActionUpdate:
			what = "updated"
		case install.ActionInstall:
			what = "installed"
		}
		ver := c.Version
		if ver == "" {
			ver = c.From
		}
		out = append(out, Action{Repair: RepairReinstall, Path: filepath.Join(c.Target, c.Name), Skill: c.Name,
			Message: fmt.Sprintf("%s %s %s in %s (from skills.lock)", what, c.Name, ver, relTo(r.Root, c.Target, r.Scope == "user"))})
	}
	return out, nil
}

// unlink removes a link to nothing, after checking again that it is one.
func unlink(f Finding) Action {
	a := Action{Repair: RepairUnlink, Path: f.Path, Skill: f.Skill}
	fi, err := os.Lstat(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		a.Message = fmt.Sprintf("%s/%s is already gone", f.Folder, f.Skill)
		return a
	}
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		a.Failed, a.Message = true, fmt.Sprintf("left %s/%s: it is no longer a link", f.Folder, f.Skill)
		return a
	}
	if _, err := os.Stat(f.Path); err == nil {
		a.Failed, a.Message = true, fmt.Sprintf("left %s/%s: the link leads somewhere again", f.Folder, f.Skill)
		return a
	}
	dest, _ := os.Readlink(f.Path)
	if err := os.Remove(f.Path); err != nil {
		a.Failed, a.Message = true, fmt.Sprintf("could not remove the link %s/%s: %v", f.Folder, f.Skill, err)
		return a
	}
	a.Message = fmt.Sprintf("removed the link %s/%s (it led to %s, which does not exist)", f.Folder, f.Skill, dest)
	return a
}

func relTo(root, dir string, user bool) string {
	r, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(r) {
		return dir
	}
	r = filepath.ToSlash(r)
	if user {
		return "~/" + r
	}
	return r
}

// Repairable counts the findings of r that Fix repairs (with force, also
// those that discard local edits).
func (r *Report) Repairable(force bool) int {
	n := 0
	for _, f := range r.Findings {
		if f.Repair == RepairUnlink || f.Repair == RepairReinstall || (force && f.Repair == RepairReinstallForce) {
			n++
		}
	}
	return n
}
