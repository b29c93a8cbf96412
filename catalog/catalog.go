// Package catalog loads the installed skills the way the listing and
// serving commands (list, tools, select, prompt, run, exec, test, mcp) all
// need them: an [agent.Catalog] built through the metadata index, the
// warnings a user must see about it (unreadable skills, skipped skills,
// skills served despite lint errors, a rebuilt index), and the
// --include/--exclude and --host narrowing.
//
// It never prints: warnings are returned as text, in the order they are
// to be shown, and the command layer prints them.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillpm/skillpm/agent"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/skill"
)

// NoProjectError is Load's error when the project folder does not exist
// or is not a folder.
type NoProjectError struct{ Dir string }

func (e *NoProjectError) Error() string {
	return fmt.Sprintf("project folder %s does not exist", e.Dir)
}

// ErrUnknownHost is wrapped by CheckHost's error for a host that is not
// one of skill.ReservedHosts.
var ErrUnknownHost = errors.New("unknown host")

// PatternError is Narrow's error for an --include or --exclude pattern
// that is not a valid glob; its text is agent.Catalog.Filter's.
type PatternError struct{ Err error }

func (e *PatternError) Error() string { return e.Err.Error() }

// Unwrap returns the Filter error.
func (e *PatternError) Unwrap() error { return e.Err }

// Options says where Load looks. Project must be an existing folder; an
// empty Home leaves the user scope out; an empty IndexPath parses every
// SKILL.md (no index).
type Options struct {
	Project, Home, IndexPath string
}

// Loaded is a catalog and what the user must be told about it.
type Loaded struct {
	Catalog *agent.Catalog
	// IndexPath is the index the catalog was read through ("" for none).
	IndexPath string
	// Elapsed is how long building the catalog took, for --debug.
	Elapsed time.Duration
	// Warnings are, in order: a rebuilt (corrupt) index, then every skill
	// folder that could not be read.
	Warnings []string
}

// Load discovers the effective skills of the project and of Home and
// reads their metadata through the index.
func Load(ctx context.Context, opts Options) (*Loaded, error) {
	if fi, err := os.Stat(opts.Project); err != nil || !fi.IsDir() {
		return nil, &NoProjectError{Dir: opts.Project}
	}
	start := time.Now()
	cat, err := agent.Build(ctx, agent.Options{Project: opts.Project, Home: opts.Home, IndexPath: opts.IndexPath})
	if err != nil {
		return nil, err
	}
	l := &Loaded{Catalog: cat, IndexPath: opts.IndexPath, Elapsed: time.Since(start)}
	if cat.Index.Rebuilt {
		l.Warnings = append(l.Warnings, fmt.Sprintf("the metadata index was corrupt and has been rebuilt (%s)", opts.IndexPath))
	}
	for _, p := range cat.Problems {
		l.Warnings = append(l.Warnings, fmt.Sprintf("skipping %s: %v", p.Dir, p.Err))
	}
	return l, nil
}

// Health returns the warnings about which skills of cat are skipped and
// which are served despite lint errors, each with the rule and the fix.
func Health(cat *agent.Catalog) []string {
	var out []string
	for _, s := range cat.Skipped {
		for _, is := range s.Issues {
			out = append(out, fmt.Sprintf("skipping skill %s (%s): %s; fix: %s", s.Name, s.Dir, is, is.Fix))
		}
	}
	for _, s := range cat.Skills {
		for _, is := range s.Issues {
			out = append(out, fmt.Sprintf("serving skill %s despite a lint error: %s; fix: %s", s.Name, is, is.Fix))
		}
	}
	return out
}

// ListHealth is Health for 'skillpm list', which lists every folder but
// must still say which ones agents are not served, or are served despite
// lint errors. It reads metadata through the index at indexPath.
//
// discovered, when non-nil, is what install.Discover returned for
// agent.Dirs(project, home), so that the folders are not read twice. An
// interrupted build returns no warnings: the listing is what was asked
// for.
func ListHealth(ctx context.Context, project, home, indexPath string, discovered []install.Entry) []string {
	cat, err := agent.Build(ctx, agent.Options{Project: project, Home: home, IndexPath: indexPath, Discovered: discovered, SkillsOnly: true})
	if err != nil {
		return nil
	}
	var out []string
	for _, p := range cat.Problems {
		out = append(out, fmt.Sprintf("skill %s cannot be read and is not served to agents: %v", filepath.Base(p.Dir), p.Err))
	}
	return append(out, Health(cat)...)
}

// CheckHost returns an error wrapping ErrUnknownHost unless host is empty
// or one of skill.ReservedHosts.
func CheckHost(host string) error {
	if host != "" && !skill.KnownHost(host) {
		return fmt.Errorf("%w %q; want one of %s", ErrUnknownHost, host, strings.Join(skill.ReservedHosts, ", "))
	}
	return nil
}

// Narrow keeps the skills of cat that include and exclude select
// (agent.Catalog.Filter) and applies their host_overrides for host (none
// when empty). Its only error is a *PatternError. The overlays that could not be applied come back as
// warnings.
func Narrow(cat *agent.Catalog, include, exclude []string, host string) (*agent.Catalog, []string, error) {
	cat, err := cat.Filter(include, exclude)
	if err != nil {
		return nil, nil, &PatternError{Err: err}
	}
	cat, errs := cat.ForHost(host)
	var warns []string
	for _, err := range errs {
		warns = append(warns, err.Error())
	}
	return cat, warns, nil
}
