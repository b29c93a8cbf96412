package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/skill"
)

// Options say where Scan looks.
type Options struct {
	// Root is the project's root, or the home folder with Global.
	Root string
	// Global reads the user scope: the skills CLI's global lock instead
	// of the project's lock files.
	Global bool
	// StateHome is $XDG_STATE_HOME; when set, the skills CLI keeps its
	// global lock in StateHome/skills.
	StateHome string
	// Dirs are the discovery folders, relative to Root, whose skill
	// folders are found (the agents' table gives them).
	Dirs []string
	// Existing are the skills skills.yaml already names: they are
	// skipped.
	Existing []string
}

// Scan reads the peers' lock files and the discovery folders and
// proposes one entry per skill found. A name found in several places is
// proposed once, from the first of: the skills CLI's lock, ToolHive's
// lock, the folders; the others are noted. Skills skillpm already
// manages (its install records say so) or that skills.yaml names are
// skipped.
func Scan(ctx context.Context, opts Options) (*Result, error) {
	res := &Result{Proposals: []*Proposal{}, Files: []string{}, Skipped: []string{}}
	byName := map[string]*Proposal{}
	add := func(ps []*Proposal) {
		for _, p := range ps {
			if first, ok := byName[p.Name]; ok {
				first.note("also in %s, which is not used", p.From)
				continue
			}
			byName[p.Name] = p
			res.Proposals = append(res.Proposals, p)
		}
	}
	type lockFile struct {
		path, rel string
		read      func(file, rel string) ([]*Proposal, bool, error)
	}
	var files []lockFile
	if opts.Global {
		file, rel := filepath.Join(opts.Root, ".agents", SkillsGlobalLockFile), "~/.agents/"+SkillsGlobalLockFile
		if opts.StateHome != "" {
			file, rel = filepath.Join(opts.StateHome, "skills", SkillsGlobalLockFile), file
		}
		files = append(files, lockFile{file, rel, func(f, r string) ([]*Proposal, bool, error) { return readSkillsCLI(f, r, opts.Root) }})
	} else {
		files = append(files,
			lockFile{filepath.Join(opts.Root, SkillsLockFile), SkillsLockFile, func(f, r string) ([]*Proposal, bool, error) { return readSkillsCLI(f, r, opts.Root) }},
			lockFile{filepath.Join(opts.Root, ToolHiveLockFile), ToolHiveLockFile, readToolHive})
	}
	for _, lf := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ps, ok, err := lf.read(lf.path, lf.rel)
		if err != nil {
			return nil, err
		}
		if ok {
			res.Files = append(res.Files, lf.rel)
			add(ps)
		}
	}
	skipped := map[string]bool{}
	for _, n := range opts.Existing {
		skipped[n] = true
	}
	seenDir, managedNames := map[string]bool{}, map[string]bool{}
	for _, dir := range opts.Dirs {
		dir = filepath.Clean(dir)
		if seenDir[dir] || !filepath.IsLocal(dir) {
			continue
		}
		seenDir[dir] = true
		folders, managed, err := skillFolders(opts.Root, dir)
		if err != nil {
			return nil, err
		}
		for _, n := range managed {
			skipped[n], managedNames[n] = true, true
		}
		for _, f := range folders {
			name := filepath.Base(f.Path)
			p, ok := byName[name]
			if !ok {
				p = &Proposal{Name: name, Kind: KindNone, From: f.Path}
				p.note("no installer recorded where it came from: left as it is")
				add([]*Proposal{p})
			}
			p.Folders = append(p.Folders, f)
		}
	}
	res.Proposals = slices.DeleteFunc(res.Proposals, func(p *Proposal) bool { return skipped[p.Name] })
	for n := range skipped {
		if _, found := byName[n]; found || managedNames[n] {
			res.Skipped = append(res.Skipped, n)
		}
	}
	res.sort()
	return res, nil
}

// skillFolders lists the skill folders of root/dir: folders (or links to
// folders) named for a skill and holding a SKILL.md. managed are the
// ones skillpm's install record lists.
func skillFolders(root, dir string) (folders []Folder, managed []string, err error) {
	target := filepath.Join(root, dir)
	rec, err := install.ReadRecord(target)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(target)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(MaxEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, fmt.Errorf("read %s: %w", target, err)
	}
	if len(entries) > MaxEntries {
		return nil, nil, fmt.Errorf("%s: more than %d entries", target, MaxEntries)
	}
	for _, e := range entries {
		name := e.Name()
		if !skill.ValidName(name) {
			continue
		}
		if rec.Skills[name] != nil {
			managed = append(managed, name)
			continue
		}
		p := filepath.Join(target, name)
		fd := Folder{Path: filepath.ToSlash(filepath.Join(dir, name))}
		if e.Type()&fs.ModeSymlink != 0 {
			if fd.Link, err = os.Readlink(p); err != nil {
				continue
			}
		} else if !e.IsDir() {
			continue
		}
		// A link is followed only to see that it is a skill.
		if fi, err := os.Stat(filepath.Join(p, skill.FileName)); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		folders = append(folders, fd)
	}
	return folders, managed, nil
}
