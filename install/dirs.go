package install

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillpm/skillpm/internal/statat"
	"github.com/skillpm/skillpm/skill"
)

// Scope says whose a discovery folder is.
type Scope string

// Scopes.
const (
	ScopeUser    Scope = "user"
	ScopeProject Scope = "project"
)

// ProjectDirs returns the project-scope discovery folders in precedence
// order: later folders override earlier ones (Skill Tools spec §7).
func ProjectDirs() []string {
	return []string{"skills", ".opencode/skills", ".claude/skills", ".agents/skills", ".wave/skills"}
}

// UserDirs returns the user-scope discovery folders, relative to the home
// folder, in precedence order. User scope comes before project scope.
func UserDirs() []string {
	return []string{".opencode/skills", ".claude/skills", ".agents/skills", ".wave/skills"}
}

// Dir is one discovery folder.
type Dir struct {
	Path  string `json:"path"`  // absolute
	Rel   string `json:"rel"`   // as configured, relative to its root
	Scope Scope  `json:"scope"` // user or project
	// Bounds say where the folder may resolve to for its install record
	// to be read: its scope's root (SearchDirs sets it). A folder whose
	// links lead elsewhere is listed, but its skills count as
	// hand-authored.
	Bounds Bounds `json:"-"`
}

// SearchDirs returns every discovery folder in precedence order, user scope
// first. An empty home or project leaves that scope out.
func SearchDirs(project, home string) []Dir {
	var out []Dir
	if home != "" {
		for _, r := range UserDirs() {
			p := filepath.Join(home, r)
			// A project at the home folder: its folders are project scope.
			if project != "" && filepath.Clean(project) == filepath.Clean(home) {
				continue
			}
			out = append(out, Dir{Path: p, Rel: "~/" + r, Scope: ScopeUser, Bounds: Bounds{Root: home}})
		}
	}
	if project != "" {
		for _, r := range ProjectDirs() {
			out = append(out, Dir{Path: filepath.Join(project, r), Rel: r, Scope: ScopeProject, Bounds: Bounds{Root: project}})
		}
	}
	return out
}

// Entry is one skill folder found in a discovery folder.
type Entry struct {
	Name    string `json:"name"`
	Path    string `json:"path"` // the skill folder, a clean path
	Root    Dir    `json:"root"`
	Managed bool   `json:"managed"`
	// Version is the installed version for managed skills.
	Version string `json:"version,omitempty"`
	// Manifest and Tree are the install record's digests for managed
	// skills: the locked manifest, and the files as installed.
	Manifest string `json:"-"`
	Tree     string `json:"-"`
	// Effective is true for the entry that wins its name.
	Effective bool `json:"effective"`
	// ShadowedBy is the path of the winning entry when this one loses.
	ShadowedBy string `json:"shadowedBy,omitempty"`
	// Shadows are the paths of the entries this one overrides.
	Shadows []string `json:"shadows,omitempty"`
	// SkillMD is what os.Stat said of the folder's SKILL.md when Discover
	// found it, so that readers of the folder's metadata (the index
	// fingerprint) need not stat it again.
	SkillMD fs.FileInfo `json:"-"`
}

// Discover lists the skill folders (subfolders holding a SKILL.md) of
// dirs, in precedence order, marking which entry wins each name. It reads
// folder listings and install records only, never SKILL.md contents. A
// record is read only from a folder inside its Bounds, and an invalid one
// is not trusted: that folder's skills are listed as hand-authored.
func Discover(dirs []Dir) []Entry {
	var all []Entry
	seen := map[string]bool{}
	for _, d := range dirs {
		if r := RealPath(d.Path); seen[r] {
			continue // the same folder under another name (a symlink)
		} else {
			seen[r] = true
		}
		if !discoverIn(d, &all) {
			continue
		}
	}
	last := map[string]int{}
	for i, e := range all {
		last[e.Name] = i
	}
	for i := range all {
		w := last[all[i].Name]
		if w == i {
			all[i].Effective = true
			continue
		}
		all[i].ShadowedBy = all[w].Path
		all[w].Shadows = append(all[w].Shadows, all[i].Path)
	}
	return all
}

// discoverIn appends the skill folders of one discovery folder to all,
// sorted by name; ok is false when it cannot be listed. Entries are
// stat'ed relative to the open folder (statat): a thousand SKILL.md cost
// half as much as by their absolute paths.
func discoverIn(d Dir, all *[]Entry) (ok bool) {
	dir, err := statat.Open(d.Path)
	if err != nil {
		return false
	}
	defer dir.Close()
	names, err := dir.Names()
	if err != nil {
		return false
	}
	// Sorted before the (large) entries are built, not after.
	slices.Sort(names)
	*all = slices.Grow(*all, len(names))
	rec := newRecord()
	if d.Bounds.Check(d.Path) == nil {
		if r, err := ReadRecord(d.Path); err == nil {
			rec = r
		}
	}
	// What filepath.Join(d.Path, name) gives for every name, which holds
	// no separator and is not "." or "..": the folder's path cleaned once.
	prefix := filepath.Join(d.Path, "x")
	prefix = prefix[:len(prefix)-1]
	// A folder is a skill when name/SKILL.md is a regular file. That
	// stat also answers whether name is a folder (or a link to one): the
	// path resolves through nothing else, so no entry is stat'ed twice.
	var mds []string
	for _, name := range names {
		if name[0] != '.' {
			mds = append(mds, name+"/"+skill.FileName)
		}
	}
	found := make([]fs.FileInfo, len(mds))
	dir.StatEach(mds, func(i int, fi fs.FileInfo, err error) {
		if err == nil && fi.Mode().IsRegular() {
			found[i] = fi
		}
	})
	for i, md := range found {
		if md == nil {
			continue
		}
		name := mds[i][:len(mds[i])-len(skill.FileName)-1]
		en := Entry{Name: name, Path: prefix + name, Root: d, SkillMD: md}
		if r := rec.Skills[name]; r != nil {
			en.Managed, en.Version = true, r.Version
			en.Manifest, en.Tree = r.Manifest, r.Tree
		}
		*all = append(*all, en)
	}
	return true
}

// Effective returns the winning entries, sorted by name, by pointer into
// entries (an Entry is large).
func Effective(entries []Entry) []*Entry {
	// Their indexes are sorted, not the entries: an Entry is large, and
	// sorting a thousand of them was mostly copying.
	var idx []int
	for i := range entries {
		if entries[i].Effective {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return strings.Compare(entries[a].Name, entries[b].Name) })
	var out []*Entry
	if len(idx) > 0 {
		out = make([]*Entry, len(idx))
	}
	for i, j := range idx {
		out[i] = &entries[j]
	}
	return out
}
