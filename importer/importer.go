// Package importer finds the skills other installers put in a project (or
// in the user scope) and proposes the skills.yaml entries that describe
// them, so 'skillpm import' can take them under management without
// retyping anything.
//
// It reads the lock files of the skills CLI (npm "skills": the project's
// skills-lock.json, the user's ~/.agents/.skill-lock.json) and of ToolHive
// (toolhive.lock.yaml), and the skill folders in the agents' discovery
// folders. Every proposal is in the shape of skills.yaml's sources: an OCI
// repository at an exact version, a git repository with its folder and the
// ref (a commit where the installer recorded one), a well-known origin or
// a local folder. What cannot be expressed is proposed as KindNone with a
// note saying why. Files are read as hostile input: bounded in size and
// entries, every name a valid skill name, every path inside its folder,
// every git source one skillpm's git source accepts.
//
// Scan only reads; Check compares installed folders with what an OCI
// source serves. MakePlan does both for 'skillpm import', and only
// Plan.Apply writes: through the project's manager, and skills.yaml under
// the project lock. The package never prints or exits.
package importer

import (
	"errors"
	"fmt"
	"sort"
)

// Kind is the kind of source a proposal names.
type Kind string

// Kinds of proposals.
const (
	KindOCI       Kind = "oci"
	KindGit       Kind = "git"
	KindWellKnown Kind = "wellknown"
	KindLocal     Kind = "local"
	// KindNone: no source skillpm can install from is known; the skill
	// is reported, nothing is written for it.
	KindNone Kind = "none"
)

// Entry is a skills.yaml entry in the shared sources shape. Only the
// fields of its Kind are set.
type Entry struct {
	// OCI: the registry prefix (the repository is Registry/NAME) and the
	// exact version installed.
	Registry string `json:"registry,omitempty"`
	Version  string `json:"version,omitempty"`
	// Git: the repository as source/giturl.Parse reads it, the skill's
	// folder in it, and the ref (a commit when known).
	Git  string `json:"git,omitempty"`
	Path string `json:"path,omitempty"`
	Ref  string `json:"ref,omitempty"`
	// WellKnown is an origin serving /.well-known/agent-skills/.
	WellKnown string `json:"wellknown,omitempty"`
	// Local is a folder, relative to the project when inside it.
	Local string `json:"local,omitempty"`
}

// Folder is an installed copy of a skill.
type Folder struct {
	// Path is the folder, relative to the project (or home) root.
	Path string `json:"path"`
	// Link is the symlink's target when the folder is a symlink (the
	// skills CLI links agents' folders to .agents/skills).
	Link string `json:"link,omitempty"`
	// Status is set by Check: "matches" (the source serves these exact
	// files), "differs", or "" when not checked.
	Status string `json:"status,omitempty"`
}

// Proposal is one skill found and the entry proposed for it.
type Proposal struct {
	Name  string `json:"name"`
	Kind  Kind   `json:"kind"`
	Entry Entry  `json:"entry"`
	// From is the file (or folder) the proposal comes from, relative to
	// the root.
	From string `json:"from"`
	// Pinned says the entry pins what was installed (an exact OCI
	// version, a git commit).
	Pinned bool `json:"pinned"`
	// Digest is what the installer recorded as installed (an OCI
	// manifest or index digest, a git commit, a folder hash), for the
	// report.
	Digest  string   `json:"digest,omitempty"`
	Folders []Folder `json:"folders,omitempty"`
	Notes   []string `json:"notes,omitempty"`
}

func (p *Proposal) note(format string, args ...any) {
	p.Notes = append(p.Notes, fmt.Sprintf(format, args...))
}

// Limits bound what Scan reads.
const (
	// MaxFileSize bounds a lock file.
	MaxFileSize = 4 << 20
	// MaxEntries bounds the skills of one lock file and the folders of
	// one discovery folder.
	MaxEntries = 10000
)

// ErrFormat is wrapped by errors about a lock file that cannot be read
// as its format; *FileError carries the file.
var ErrFormat = errors.New("unreadable lock file")

// FileError is a peer's lock file that is not what its format says.
type FileError struct {
	File string
	Err  error
}

func (e *FileError) Error() string { return e.File + ": " + e.Err.Error() }

// Unwrap makes errors.Is(err, ErrFormat) true.
func (e *FileError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// Result is what Scan found.
type Result struct {
	// Proposals, sorted by name.
	Proposals []*Proposal `json:"proposals"`
	// Files are the peers' lock files read, relative to their root.
	Files []string `json:"files"`
	// Skipped are skills found that skills.yaml already has or that
	// skillpm already manages.
	Skipped []string `json:"skipped"`
}

func (r *Result) sort() {
	sort.Slice(r.Proposals, func(i, j int) bool { return r.Proposals[i].Name < r.Proposals[j].Name })
	sort.Strings(r.Skipped)
}
