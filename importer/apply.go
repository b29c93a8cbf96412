package importer

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
)

// 'skillpm import' is MakePlan then Plan.Apply: MakePlan scans, matches the folders no
// installer recorded against the project's registry and checks the OCI
// proposals' folders against what their sources serve, reading only;
// Apply adds the OCI skills through the project's manager and writes the
// other sources' entries into skills.yaml.

// Action is what the import does with one proposal.
type Action string

// Actions.
const (
	// ActionInstalled: added to skills.yaml, locked and installed
	// (matching folders adopted as they are).
	ActionInstalled Action = "installed"
	// ActionWritten: written to skills.yaml; it resolves through its
	// source kind.
	ActionWritten Action = "written"
	// ActionReported: nothing written; the proposal's notes say why.
	ActionReported Action = "reported"
)

// Row is one proposal and what the import does with it.
type Row struct {
	*Proposal
	Action Action `json:"action"`
}

// PlanOptions configure Plan.
type PlanOptions struct {
	// Scan says what to scan; its Existing is filled from Project's
	// skills.yaml.
	Scan Options
	// Project is the project folder, where skills.yaml is (or will be).
	Project string
	// Registry is the registry prefix folders no installer recorded are
	// matched in when skills.yaml names none (the CLI's
	// SKILLPM_REGISTRY); with neither, they are only reported.
	Registry string
}

// Plan is what an import will do.
type Plan struct {
	// Result is the scan.
	*Result
	// Rows are the proposals in scan order, each with its action.
	Rows []Row

	wants   []manager.Want
	sources []*Proposal
}

// Adds reports whether Apply adds skills through a manager.
func (p *Plan) Adds() bool { return len(p.wants) > 0 }

// MakePlan scans (Scan), matches the folders no installer recorded
// against the project's registry (Match) and checks the folders of OCI
// proposals against what their sources serve (Check), through client. It
// writes nothing.
func MakePlan(ctx context.Context, client *registry.Client, o PlanOptions) (*Plan, error) {
	if p, err := project.Load(o.Project); err == nil {
		o.Scan.Existing = p.Names()
	} else if !errors.Is(err, project.ErrNotFound) {
		return nil, err
	}
	res, err := Scan(ctx, o.Scan)
	if err != nil {
		return nil, err
	}
	if err := matchHandCopies(ctx, client, o, res.Proposals); err != nil {
		return nil, err
	}
	plan := &Plan{Result: res, Rows: make([]Row, 0, len(res.Proposals))}
	for _, p := range res.Proposals {
		row := Row{Proposal: p, Action: ActionReported}
		switch p.Kind {
		case KindOCI:
			ok, err := checkFolders(ctx, client, o.Scan.Root, p)
			if err != nil {
				return nil, err
			}
			if ok {
				row.Action = ActionInstalled
				plan.wants = append(plan.wants, manager.Want{Name: p.Name, Constraint: p.Entry.Version, Registry: p.Entry.Registry})
			}
		case KindGit, KindWellKnown, KindLocal:
			row.Action = ActionWritten
			plan.sources = append(plan.sources, p)
			if p.Kind == KindGit {
				p.Notes = append(p.Notes, "installs once skillpm's git source is available; until then 'skillpm install' cannot resolve it")
			}
			for _, f := range p.Folders {
				if f.Link != "" {
					p.Notes = append(p.Notes, fmt.Sprintf("%s is a symlink (to %s), which skillpm never replaces: remove it before installing", f.Path, f.Link))
				}
			}
		}
		plan.Rows = append(plan.Rows, row)
	}
	return plan, nil
}

// matchHandCopies looks for the folders no installer recorded in the
// project's registry (skills.yaml's, else o.Registry).
func matchHandCopies(ctx context.Context, client *registry.Client, o PlanOptions, ps []*Proposal) error {
	prefix := o.Registry
	if p, err := project.Load(o.Project); err == nil && p.Registry != "" {
		prefix = p.Abs(p.Registry)
	}
	if prefix == "" {
		return nil
	}
	for _, p := range ps {
		if _, err := Match(ctx, client, o.Scan.Root, prefix, p); err != nil {
			return err
		}
	}
	return nil
}

// checkFolders compares the installed folders of an OCI proposal with
// what its source serves, noting why a folder is not adopted.
func checkFolders(ctx context.Context, client *registry.Client, root string, p *Proposal) (bool, error) {
	ok, err := Check(ctx, client, root, "", p)
	if err != nil {
		return false, err
	}
	for _, f := range p.Folders {
		switch f.Status {
		case StatusDiffers:
			p.Notes = append(p.Notes, fmt.Sprintf("%s differs from what %s/%s %s serves: left as it is and not added (move it away and import again to install the published one)", f.Path, p.Entry.Registry, p.Name, p.Entry.Version))
		case StatusLink:
			p.Notes = append(p.Notes, fmt.Sprintf("%s is a symlink, which skillpm never replaces: not added (remove the link and import again)", f.Path))
		}
	}
	return ok, nil
}

// ApplyOptions configure Apply.
type ApplyOptions struct {
	// Manager adds the OCI skills (manager.Manager.Add); required when
	// the plan Adds, unused otherwise.
	Manager *manager.Manager
	// Project is the project folder whose skills.yaml receives the git,
	// well-known and local entries.
	Project string
	// Registry is the registry a new skills.yaml names (the CLI's
	// SKILLPM_REGISTRY; "" for none).
	Registry string
}

// Apply adds the plan's OCI skills through o.Manager, then writes its
// git, well-known and local entries into skills.yaml under the project
// lock. It reports whether skills.lock was written.
func (p *Plan) Apply(ctx context.Context, o ApplyOptions) (lockWritten bool, err error) {
	if p.Adds() {
		m := o.Manager
		if m == nil {
			return false, errors.New("import: no project manager to add skills through")
		}
		wants := append([]manager.Want(nil), p.wants...)
		for i := range wants {
			if r := wants[i].Registry; r == m.Project.Registry || r == m.Project.Abs(m.Project.Registry) {
				wants[i].Registry = ""
			}
		}
		if _, err := m.Add(ctx, manager.AddOptions{Skills: wants}); err != nil {
			return false, fmt.Errorf("import: %w", err)
		}
		lockWritten = true
	}
	if len(p.sources) > 0 {
		if err := writeSources(ctx, o.Project, o.Registry, p.sources); err != nil {
			return lockWritten, err
		}
	}
	return lockWritten, nil
}

// writeSources writes the git, well-known and local entries into
// skills.yaml, holding the project lock.
func writeSources(ctx context.Context, dir, registry string, ps []*Proposal) error {
	l, err := install.Acquire(ctx, dir)
	if err != nil {
		return err
	}
	defer l.Unlock()
	m, err := project.Load(dir)
	if errors.Is(err, project.ErrNotFound) {
		m = project.New(dir, registry)
	} else if err != nil {
		return err
	}
	for _, p := range ps {
		en := p.Entry
		w := project.Want{Git: en.Git, Path: en.Path, Ref: en.Ref, WellKnown: en.WellKnown, Local: en.Local}
		if err := project.CheckSource(p.Name, w); err != nil {
			return err
		}
		m.SetSource(p.Name, w)
	}
	data, err := m.Marshal()
	if err != nil {
		return err
	}
	if err := lockfile.WriteFileAtomic(m.Path(), data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", m.Path(), err)
	}
	return nil
}
