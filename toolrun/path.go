package toolrun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// resolveScript checks that script names a regular file inside the skill
// folder dir and returns its real (symlink-free) path. The returned *Error
// has Kind and Msg set; the caller fills in Skill, Tool and Script, and the
// messages assume Script is shown.
func resolveScript(dir, script string) (string, *Error) {
	realDir, err := skillDir(dir)
	if err != nil {
		return "", &Error{Kind: SkillNotFound, Msg: "skill folder not found", Err: err}
	}
	if script == "" {
		return "", &Error{Kind: ScriptNotFound, Msg: "no script given"}
	}
	slashed := filepath.ToSlash(script)
	if filepath.IsAbs(script) || filepath.VolumeName(script) != "" || strings.HasPrefix(slashed, "/") {
		return "", &Error{Kind: ScriptNotAllowed, Msg: "absolute script path; want a path relative to the skill folder"}
	}
	if slices.Contains(strings.Split(slashed, "/"), "..") {
		return "", &Error{Kind: ScriptNotAllowed, Msg: `script path contains ".."; scripts must live inside the skill folder`}
	}
	clean := filepath.Clean(filepath.FromSlash(script))
	if !filepath.IsLocal(clean) {
		return "", &Error{Kind: ScriptNotAllowed, Msg: "script path is not local to the skill folder"}
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realDir, clean))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", &Error{Kind: ScriptNotFound, Msg: "not found in skill folder " + dir}
		}
		return "", &Error{Kind: ScriptNotFound, Msg: "resolve script", Err: err}
	}
	if rel, err := filepath.Rel(realDir, real); err != nil || !filepath.IsLocal(rel) {
		return "", &Error{Kind: ScriptNotAllowed, Msg: "script resolves outside the skill folder (symlink to " + real + ")"}
	}
	fi, err := os.Stat(real)
	switch {
	case err != nil:
		return "", &Error{Kind: ScriptNotFound, Msg: "stat script", Err: err}
	case fi.IsDir():
		return "", &Error{Kind: ScriptNotFound, Msg: "script is a directory"}
	case !fi.Mode().IsRegular():
		return "", &Error{Kind: ScriptNotAllowed, Msg: "script is not a regular file"}
	}
	return real, nil
}

// skillDir returns the absolute, symlink-free form of dir, which must be an
// existing directory.
func skillDir(dir string) (string, error) {
	if dir == "" {
		return "", errors.New("no skill folder given")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", errors.New(real + " is not a directory")
	}
	return real, nil
}

// lookPath finds an interpreter. A name with a path separator is used as
// is; otherwise it is searched for in pathEnv (the child's PATH), falling
// back to the host's PATH.
func lookPath(name, pathEnv string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') {
		return exec.LookPath(name)
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			continue // never resolve interpreters relative to the working directory
		}
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("interpreter %q not found in PATH", name)
	}
	return p, nil
}

// envValue returns the value of k in env, or "".
func envValue(env []string, k string) string {
	v := ""
	for _, kv := range env {
		if name, val, ok := strings.Cut(kv, "="); ok && name == k {
			v = val
		}
	}
	return v
}
