package skill

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Find returns the skill folders at or under p: p itself when it
// holds a SKILL.md entry (even a broken one, so lint can say what is
// wrong), otherwise every folder below it that does. Hidden folders are
// searched (.claude/skills) except .git; node_modules is skipped. The
// folders are sorted. A missing or skill-less p is an *Error wrapping
// ErrNotSkill, with the fix in it.
func Find(p string) ([]string, error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Path: p, Rule: "skill-md-missing", Msg: "no such file or directory", Fix: "pass the path of a skill folder", Err: ErrNotSkill}
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		if filepath.Base(p) == FileName {
			return []string{filepath.Dir(p)}, nil
		}
		return nil, &Error{Path: p, Rule: "skill-md-missing", Msg: "not a skill folder", Fix: "pass the folder that holds SKILL.md", Err: ErrNotSkill}
	}
	if _, err := os.Lstat(filepath.Join(p, FileName)); err == nil {
		return []string{p}, nil
	}
	var dirs []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == p {
				return err
			}
			return nil // unreadable subfolders are skipped
		}
		if d.IsDir() && path != p && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.Name() == FileName && path != p {
			dirs = append(dirs, filepath.Dir(path))
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(dirs) == 0 {
		return nil, &Error{Path: p, Rule: "skill-md-missing", Msg: "no SKILL.md found in or under this folder", Fix: "create one with 'skillpm init " + p + "'", Err: ErrNotSkill}
	}
	sort.Strings(dirs)
	return dirs, nil
}
