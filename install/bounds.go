package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Bounds say where target folders may lie. A target folder, with every
// symlink of its path resolved (a `.claude` or `.claude/skills` that is a
// link), must be inside Root or inside one of Allow: a project's files
// must never make skillpm write, or delete, elsewhere.
type Bounds struct {
	// Root is the folder targets must resolve into: the project folder,
	// or the home folder for the user scope. "" checks nothing.
	Root string
	// Allow lists further absolute folders targets may resolve into (the
	// user config's allow_target_outside).
	Allow []string
}

// OutsideError reports a target folder that resolves outside its bounds.
type OutsideError struct {
	Dir      string // the target folder, as configured
	Resolved string // where its symlinks lead
	Root     string // the folder it had to stay in
	// Own: Resolved is Root itself, or inside a .git folder of it.
	Own bool
}

func (e *OutsideError) Error() string {
	if e.Own {
		return fmt.Sprintf("target folder %s resolves to %s; a target must be a folder of its own inside %s, not the project folder itself or inside .git (where a skill named hooks would become git's hooks): replace the symbolic link with a folder, or fix 'targets:' in skills.yaml",
			e.Dir, e.Resolved, e.Root)
	}
	return fmt.Sprintf("target folder %s resolves to %s, outside %s; skillpm installs and removes skills only inside it: replace the symbolic link with a folder (or fix 'targets:' in skills.yaml), or allow %s with allow_target_outside in the user config",
		e.Dir, e.Resolved, e.Root, e.Resolved)
}

// Check returns an *OutsideError when target resolves outside b.
func (b Bounds) Check(target string) error {
	if b.Root == "" {
		return nil
	}
	// A link to nothing on the way would resolve only once something
	// creates what it names: refuse it as it stands.
	for d := filepath.Clean(target); d != filepath.Dir(d); d = filepath.Dir(d) {
		if fi, err := os.Lstat(d); err != nil || !isLink(fi) {
			continue
		}
		if _, err := os.Stat(d); err == nil {
			continue // resolves: RealPath follows it below
		}
		dest, _ := os.Readlink(d)
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(d), dest)
		}
		return &OutsideError{Dir: target, Resolved: dest + " (a link to nothing)", Root: b.Root}
	}
	real, root := RealPath(target), RealPath(b.Root)
	if within(real, root) {
		// skills.yaml's targets are refused there as written
		// (project.Manifest); a link the repository carries must not
		// lead there either.
		if rel, _ := filepath.Rel(root, real); rel == "." || slices.ContainsFunc(strings.Split(filepath.ToSlash(rel), "/"), isGitDir) {
			return &OutsideError{Dir: target, Resolved: real, Root: b.Root, Own: true}
		}
		return nil
	}
	for _, a := range b.Allow {
		if filepath.IsAbs(a) && within(real, RealPath(a)) {
			return nil
		}
	}
	return &OutsideError{Dir: target, Resolved: real, Root: b.Root}
}

// isGitDir reports whether a path element names git's folder, in any
// case (on a case-insensitive file system .GIT is .git).
func isGitDir(el string) bool { return strings.EqualFold(el, ".git") }

// within reports whether p is dir or below it; both are clean and
// absolute.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}

// ErrLinkedSkill is wrapped by errors about a managed skill folder that
// is a symbolic link: skillpm never deletes or writes through one.
var ErrLinkedSkill = errors.New("skill folder is a symbolic link")

// LinkError reports a managed skill folder that a symbolic link (or a
// file) has taken the place of.
type LinkError struct {
	Dir  string // the skill folder
	Name string
	File bool // a file, not a link, is in its place
}

func (e *LinkError) Error() string {
	if e.File {
		return fmt.Sprintf("%s (%s, installed by skillpm) was replaced by a file; skillpm removes skill folders only: move the file away, then run 'skillpm install'", e.Dir, e.Name)
	}
	return fmt.Sprintf("%s (%s, installed by skillpm) was replaced by a symbolic link; skillpm never deletes or installs through a link: remove the link yourself, then run 'skillpm install'", e.Dir, e.Name)
}

// linkError describes what stands at a managed skill's folder instead.
func linkError(dir, name string, fi os.FileInfo) *LinkError {
	return &LinkError{Dir: dir, Name: name, File: !isLink(fi)}
}

// Unwrap makes errors.Is(err, ErrLinkedSkill) hold.
func (e *LinkError) Unwrap() error { return ErrLinkedSkill }

// openTarget opens target (checked against its bounds) as an os.Root,
// and checks that the folder it opened is the one that was checked, so
// a link swapped in meanwhile is not followed.
func openTarget(target string, b Bounds) (*os.Root, error) {
	if err := b.Check(target); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(target)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", target, err)
	}
	if err := b.Check(target); err != nil {
		r.Close()
		return nil, err
	}
	got, err1 := r.Stat(".")
	want, err2 := os.Stat(RealPath(target))
	if err1 != nil || err2 != nil || !os.SameFile(got, want) {
		r.Close()
		return nil, fmt.Errorf("open %s: the folder changed while it was opened; run again", target)
	}
	return r, nil
}

// isLink reports whether fi is a symbolic link (or, on Windows, a
// junction or another reparse point Go reports as irregular).
func isLink(fi os.FileInfo) bool {
	return fi.Mode()&(os.ModeSymlink|os.ModeIrregular) != 0
}

// openLockFile opens .skillpm/name in the project dir through an os.Root,
// creating .skillpm: a .skillpm that links out of the project is refused,
// never written through.
func openLockFile(dir, name string, flag int) (*os.File, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("lock project: %w", err)
	}
	defer root.Close()
	if err := root.MkdirAll(".skillpm", 0o755); err != nil {
		return nil, fmt.Errorf("lock project: %s: %w (it must be a folder inside the project)", filepath.Join(dir, ".skillpm"), err)
	}
	f, err := root.OpenFile(filepath.Join(".skillpm", name), flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock project: %s: %w (it must be a folder inside the project)", filepath.Join(dir, ".skillpm"), err)
	}
	return f, nil
}

// uniqueDirs drops targets that are the same folder as an earlier one
// (".agents/skills" is often a symlink to ".claude/skills"): one folder
// is planned, staged and recorded once.
func uniqueDirs(dirs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		r := RealPath(d)
		if seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, d)
	}
	return out
}

// RealPath resolves the symlinks of p's longest existing ancestor, so two
// spellings of one folder compare equal even before it exists.
func RealPath(p string) string {
	p = filepath.Clean(p)
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// targetLocks takes the locks of targets, in a fixed order (so that two
// runs locking the same folders cannot each hold one the other waits
// for): one file per folder under memoDir's "locks" folder, named by the
// sha256 of the folder's real path (RealPath), so every spelling of a
// folder, and every project writing to it, takes the same lock. The
// project lock serialises the runs of one project; this one serialises
// runs of different projects that share a target (-g and a project at
// the home folder; folders allowed with allow_target_outside): one
// would otherwise remove the other's staging folder as a crashed run's,
// or save a record that lacks the other's skills. With no memoDir, or
// one it cannot write (a read-only cache), it locks nothing, as the
// memos there are only written when they can be.
func targetLocks(ctx context.Context, memoDir string, targets []string, log io.Writer) (unlock func(), err error) {
	dir := filepath.Join(memoDir, "locks")
	if memoDir == "" || os.MkdirAll(dir, 0o700) != nil {
		return func() {}, nil
	}
	type one struct{ key, target string }
	var all []one
	for _, t := range targets {
		sum := sha256.Sum256([]byte(RealPath(t)))
		all = append(all, one{hex.EncodeToString(sum[:]), t})
	}
	slices.SortFunc(all, func(a, b one) int { return strings.Compare(a.key, b.key) })
	var held []*Lock
	unlock = func() {
		for _, l := range held {
			l.Unlock()
		}
	}
	for i, o := range all {
		if i > 0 && o.key == all[i-1].key {
			continue
		}
		l, err := lockTarget(ctx, filepath.Join(dir, o.key), o.target, log)
		if err != nil {
			unlock()
			return nil, err
		}
		held = append(held, l)
	}
	return unlock, nil
}
