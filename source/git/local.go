package git

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/giturl"
)

// checkLocal refuses a file:// repository that lies outside e's project
// folder (e.Root) and outside every folder in s.LocalRoots: a project's
// skills.yaml, which may come from anyone's repository, must not make
// skillpm copy the machine's other repositories into the project's skill
// folders, where agents read them. Links are resolved before the check.
// An entry without a Root (a source the user typed, as sync --from)
// checks nothing.
func (s *Kind) checkLocal(e source.Entry) error {
	if e.Root == "" {
		return nil
	}
	u, err := url.Parse(e.Location)
	if err != nil || u.Scheme != "file" {
		return nil
	}
	repo := realPath(filepath.FromSlash(u.Path))
	roots := append([]string{e.Root}, s.LocalRoots...)
	for _, r := range roots {
		if within(realPath(r), repo) {
			return nil
		}
	}
	return fmt.Errorf("%w: %s is outside the project %s; a skills.yaml may read file:// repositories only inside its project: move the repository there, or, if you trust this project with it, add %s (or a folder above it) to allow_local_git in your user config",
		ErrLocalOutside, giturl.Redact(e.Location), e.Root, filepath.Dir(repo))
}

// realPath is p with links resolved as far as they exist, cleaned.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
