package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// put moves a staged skill into dir, swapping atomically with an existing
// folder. It reports whether the staged folder was moved as it was (no
// folder was there): then its stat fingerprint is the staged one.
func (p *targetPlan) put(s *step, dir string, force bool) (moved bool, err error) {
	srcRel := filepath.Join(p.stagingName, s.Name)
	src := filepath.Join(p.dir, srcRel)
	fi, err := p.root.Lstat(s.Name)
	if errors.Is(err, os.ErrNotExist) {
		if err := p.root.Rename(srcRel, s.Name); err != nil {
			return false, fmt.Errorf("install %s: %w", s.Name, err)
		}
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("install %s: %w", s.Name, err)
	}
	if isLink(fi) || !fi.IsDir() {
		return false, linkError(dir, s.Name, fi)
	}
	if s.rec == nil {
		// Planned as absent (a folder there before was adopted, or
		// refused, by checkFolders): one made since, by the user or an
		// agent, is theirs, never swapped out and deleted.
		return false, &HandAuthoredError{Dir: dir, Skill: s.skill}
	}
	if !s.checkContent && !s.claimed && !force {
		// Planned as unedited: an edit made since (while other skills
		// downloaded or swapped) is the user's, and not replaced.
		if same, err := stillHolds(dir, s.rec); err != nil {
			return false, fmt.Errorf("install %s: %w", s.Name, err)
		} else if !same {
			return false, &ModifiedError{Dir: dir, Name: s.Name, Version: s.rec.Version}
		}
	}
	if !s.claimed {
		// Files the user added to a managed skill (not in its record)
		// move on with it, as 'remove --force' keeps them: only what
		// skillpm installed is replaced. A record that alone vouches
		// for the folder (claimed) cannot tell them apart.
		if err := keepUserFiles(dir, src, s.rec); err != nil {
			return false, fmt.Errorf("install %s: keep files you added: %w", s.Name, err)
		}
	}
	if err := exchange(p.root, srcRel, s.Name); err != nil {
		return false, fmt.Errorf("install %s: %w", s.Name, err)
	}
	return false, p.root.RemoveAll(srcRel) // now the old folder
}

// stillHolds reports whether dir holds the tree r records, checked
// afresh (not by prescan's verdict): by its stat fingerprint, else by
// its files.
func stillHolds(dir string, r *RecordSkill) (bool, error) {
	if r.Tree != "" && statUnchanged(dir, r, false) {
		return true, nil
	}
	t, err := HashTree(dir)
	if err != nil {
		return false, err
	}
	return t.Digest == r.Tree, nil
}

// keepUserFiles copies into the staged folder the regular files of the
// installed folder that its record does not list and the new content does
// not have.
func keepUserFiles(installed, staged string, r *RecordSkill) error {
	ours := map[string]bool{}
	for _, f := range r.Files {
		ours[f] = true
	}
	return walkSorted(installed, func(rel string, fi fs.FileInfo) error {
		if !fi.Mode().IsRegular() || ours[rel] {
			return nil
		}
		dst := filepath.Join(staged, filepath.FromSlash(rel))
		if _, err := os.Lstat(dst); err == nil {
			return nil // the new version has a file of that name: it wins
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return copyFile(filepath.Join(installed, filepath.FromSlash(rel)), dst, fi.Mode().Perm())
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	return copyFileTo(src, func() (*os.File, error) {
		return os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	})
}

// copyFileTo copies the regular file src into the new file create makes.
func copyFileTo(src string, create func() (*os.File, error)) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := create()
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// removeSkill removes the managed skill name. An unmodified folder goes
// whole (by rename first, so a crash never leaves half of it); with force,
// an edited folder loses only the files skillpm installed. Everything is
// removed through the target's os.Root, and an edited folder's files
// through one opened on the skill folder: a link on the way, to anywhere,
// is never followed.
func (p *targetPlan) removeSkill(name string, r *RecordSkill, force bool) error {
	dir := filepath.Join(p.dir, name)
	fi, err := p.root.Lstat(name)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("remove %s: %w", dir, err)
	case isLink(fi) || !fi.IsDir():
		return linkError(dir, name, fi)
	}
	// Checked afresh, not by prescan's verdict: an edit made since the
	// plan (while other skills swapped) is the user's.
	r.scan = scanUnknown
	if eff, _, err := current(dir, r); err != nil {
		return err
	} else if eff == nil {
		if !force {
			return &ModifiedError{Dir: dir, Name: name, Version: r.Version}
		}
		sub, err := p.root.OpenRoot(name)
		if err != nil {
			return fmt.Errorf("remove %s: %w", dir, err)
		}
		defer sub.Close()
		for _, f := range r.Files {
			if checkRecordedPath(f) != nil {
				continue // ReadRecord refused such records; never act on one
			}
			rel := filepath.FromSlash(f)
			if fi, err := sub.Lstat(rel); err != nil || fi.IsDir() {
				continue
			}
			sub.Remove(rel)
		}
		removeEmptyDirs(dir)
		return nil
	}
	trash := filepath.Join(p.stagingName, "removed-"+name)
	if err := p.root.Rename(name, trash); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return p.root.RemoveAll(trash)
}

// removeEmptyDirs removes dir's empty subfolders, deepest first, and dir
// itself when it ends up empty.
func removeEmptyDirs(dir string) {
	var dirs []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		os.Remove(dirs[i]) // fails, harmlessly, when not empty
	}
}

// exchangeByRename swaps a and b with two renames, for systems without an
// atomic exchange. A crash between them leaves b missing; the next run
// reinstalls it.
func exchangeByRename(root *os.Root, a, b string) error {
	tmp := b + ".skillpm-old"
	if err := root.Rename(b, tmp); err != nil {
		return err
	}
	if err := root.Rename(a, b); err != nil {
		root.Rename(tmp, b)
		return err
	}
	return root.Rename(tmp, a)
}

// cleanLeftovers removes staging and trash folders, and record temporary
// files, of crashed runs.
func cleanLeftovers(root *os.Root) {
	f, err := root.Open(".")
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(-1)
	f.Close()
	for _, n := range names {
		if strings.HasPrefix(n, stagingPrefix) || strings.HasPrefix(n, trashPrefix) || strings.HasSuffix(n, ".skillpm-old") || strings.HasPrefix(n, recordTempPrefix) {
			root.RemoveAll(n)
		}
	}
}
