package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/skillpm/skillpm/internal/command"

	"github.com/Masterminds/semver/v3"

	"github.com/skillpm/skillpm/bundle"
	"github.com/skillpm/skillpm/index"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/project"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/verify"
	"github.com/urfave/cli/v2"
)

// openOptions say how a command opens its project.
type openOptions struct {
	project  command.ProjectOptions  // the project flags
	registry command.RegistryOptions // the registry flags
	// create starts an empty skills.yaml when there is none (add).
	create bool
	// trust enforces the trust policy on installs (install, add,
	// remove, update): the project's, the user's and the system's.
	trust bool
	// bundle, when set, is the bundle ('skillpm bundle' output) to
	// install from instead of the registries, with no network.
	bundle string
	// lazy builds the registry client and opens the index only when
	// the command first reads a registry (install: a warm run reads
	// none). Without a bundle, and when no trust policy applies (whose
	// checks read the registry anyway).
	lazy bool
	// quietDefault, for add, does not announce the default registry of
	// a new project; it sets *quietDefault to true when there was one to
	// announce, for add to print (registryNote) only when a skill it
	// adds comes from a registry.
	quietDefault *bool
}

// readOpenOptions reads the project and registry flag groups; the
// command sets the rest.
func readOpenOptions(c *cli.Context) (openOptions, error) {
	po, err := command.ReadProjectOptions(c)
	if err != nil {
		return openOptions{}, err
	}
	ro, err := command.ReadRegistryOptions(c)
	return openOptions{project: po, registry: ro}, err
}

// openManager loads the project, chooses its source (the registries
// through one client, or a bundle) and, with o.trust, the trust policy,
// and builds the Manager over them. What it opens is closed when the
// command ends.
func openManager(e *command.Env, o openOptions) (*manager.Manager, error) {
	po, ro := o.project, o.registry
	p, err := project.LoadMemo(po.Dir, command.MemoDir("manifests"))
	if errors.Is(err, project.ErrNotFound) && o.create {
		reg := command.EnvRegistry()
		if reg == "" {
			reg = "oci:./registry"
			if o.quietDefault != nil {
				*o.quietDefault = true
			} else {
				registryNote(e)
			}
		}
		p = project.New(po.Dir, reg)
	} else if err != nil {
		return nil, err
	}
	var v *verify.Verifier
	if o.trust {
		if v, err = loadVerifier(e, trustOptions{}, projectPolicy(p)); err != nil {
			return nil, err
		}
	}
	var (
		src         manager.Registry
		trustClient *registry.Client // trust reads signatures afresh
		from        *bundle.Source   // from a bundle, only from the bundle
	)
	switch {
	case o.lazy && o.bundle == "" && v == nil:
		lr := &lazyRegistry{open: func() (*manager.RegistrySource, error) { return openRegistrySource(e, po, ro) }}
		e.AtExit(func() { closeRegistrySource(e, lr.rs) }) // after every use: the command has returned
		src = lr
	case o.bundle != "":
		client, err := registryClient(e, ro)
		if err != nil {
			return nil, err
		}
		b, err := bundle.Open(client, o.bundle, "")
		if err != nil {
			return nil, err
		}
		e.AtExit(func() { b.Close() })
		trustClient, src, from = client.Fresh(), b, b
	default:
		rs, err := openRegistrySource(e, po, ro)
		if err != nil {
			return nil, err
		}
		e.AtExit(func() { closeRegistrySource(e, rs) })
		trustClient, src = rs.Client.Fresh(), rs
	}
	checked := ""
	if d, err := command.CacheDir(); err == nil && o.bundle == "" {
		checked = filepath.Join(d, "checked") // remembered lock checks (manager/checked.go)
	}
	m := &manager.Manager{Scope: project.Scope{Project: p, LockMemoDir: command.MemoDir("locks"), RecordMemoDir: command.MemoDir("records")},
		Registry: src, DefaultRegistry: command.EnvRegistry(), PinnedFromRegistry: o.bundle != "", CheckedDir: checked}
	if e.StderrTTY && !e.Quiet || e.Debug {
		m.Log = e.Stderr
	}
	m.AfterSwap = crashHook()
	if err := setSources(e, ro, m); err != nil {
		return nil, err
	}
	if err := command.SetScope(e, po, &m.Scope); err != nil {
		return nil, err
	}
	if v != nil {
		t := &verify.Trust{Client: trustClient, Verifier: v}
		m.Trust = t
		if from != nil {
			m.Trust = from.Trust(t)
		}
	}
	return m, nil
}

// openRegistrySource builds the registries' source: one client, and the
// search index as its metadata cache (unless --no-index).
func openRegistrySource(e *command.Env, po command.ProjectOptions, ro command.RegistryOptions) (*manager.RegistrySource, error) {
	client, err := registryClient(e, ro)
	if err != nil {
		return nil, err
	}
	rs := &manager.RegistrySource{Client: client}
	if cache := openMetaCache(e, po.NoIndex); cache != nil {
		rs.Cache = cache
	}
	return rs, nil
}

// closeRegistrySource writes back and closes the index rs opened, if it
// was opened.
func closeRegistrySource(e *command.Env, rs *manager.RegistrySource) {
	if rs == nil || rs.Cache == nil {
		return
	}
	if err := rs.Cache.(*index.Remote).Close(); err != nil {
		e.Debugf("index not updated: %v", err)
	}
}

// lazyRegistry is a manager.Registry whose registry source is built
// (client, blob cache, index) when a method is first called.
type lazyRegistry struct {
	once sync.Once
	open func() (*manager.RegistrySource, error)
	rs   *manager.RegistrySource
	err  error
}

func (l *lazyRegistry) get() (*manager.RegistrySource, error) {
	l.once.Do(func() { l.rs, l.err = l.open() })
	return l.rs, l.err
}

func (l *lazyRegistry) Versions(ctx context.Context, repo string) ([]*semver.Version, error) {
	rs, err := l.get()
	if err != nil {
		return nil, err
	}
	return rs.Versions(ctx, repo)
}

func (l *lazyRegistry) Describe(ctx context.Context, repo, version string) (*manager.Release, error) {
	rs, err := l.get()
	if err != nil {
		return nil, err
	}
	return rs.Describe(ctx, repo, version)
}

func (l *lazyRegistry) Manifest(ctx context.Context, repo, digest string) (*manager.Release, error) {
	rs, err := l.get()
	if err != nil {
		return nil, err
	}
	return rs.Manifest(ctx, repo, digest)
}

func (l *lazyRegistry) Materialize(ctx context.Context, s lockfile.Skill, dir string) error {
	rs, err := l.get()
	if err != nil {
		return err
	}
	return rs.Materialize(ctx, s, dir)
}

// crashHook is the e2e suite's way to crash an install at a known point:
// with SKILLPM_TEST_CRASH_AFTER_SWAPS=N the process kills itself (SIGKILL)
// once N skills were swapped into place. nil without it.
func crashHook() func(int) {
	n, err := strconv.Atoi(os.Getenv("SKILLPM_TEST_CRASH_AFTER_SWAPS"))
	if err != nil || n <= 0 {
		return nil
	}
	return func(swapped int) {
		if swapped >= n {
			killSelf()
		}
	}
}

// A new project resolves from the SKILLPM_REGISTRY environment variable,
// else from a registry folder in the project (the embedded default, no
// server), which registryNote announces: a user who meant a server
// registry learns where skills are being looked for. 'add' of only git,
// well-known or local sources needs no registry, and says nothing.
func registryNote(e *command.Env) {
	e.Logf("note: no registry configured; using the project folder's oci:./registry (set SKILLPM_REGISTRY, or 'registry:' in skills.yaml)")
}

// printChanges reports what an install did: how many skills the lock
// holds, what happened to them, and in how many folders.
func printChanges(e *command.Env, res *manager.Result) error {
	if e.JSON {
		return command.WriteJSON(e.Stdout, map[string]any{"changes": command.NonNil(res.Changes), "skills": res.Lock.Skills})
	}
	if e.Quiet {
		return nil
	}
	var changed, removed, unchanged int
	for _, s := range res.Skills() {
		switch s.Action {
		case install.ActionRemove:
			removed++
		case install.ActionUnchanged:
			unchanged++
		default:
			changed++
		}
	}
	fmt.Fprintf(e.Stdout, "%s locked; %d installed or updated, %d removed, %d unchanged, in %s\n",
		command.Plural(len(res.Lock.Skills), "skill"), changed, removed, unchanged, command.Plural(len(res.Folders), "folder"))
	return nil
}

// openOffline loads the project for commands that need no registry.
func openOffline(e *command.Env, po command.ProjectOptions) (*manager.Manager, error) {
	s, err := command.OpenScope(e, po)
	if err != nil {
		return nil, err
	}
	return &manager.Manager{Scope: *s}, nil
}
