package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source/giturl"
)

// The skills CLI (npm "skills", github.com/vercel-labs/skills) keeps two
// lock files, both JSON objects {"version": N, "skills": {NAME: entry}}:
//
//   - skills-lock.json at a project's root (version 1): entries of
//     source ("owner/repo", a path, a package), sourceType ("github",
//     "gitlab", "git", "local", "well-known", "node_modules", …), an
//     optional ref (the branch, tag or commit given) and computedHash
//     (SHA-256 over the installed files);
//   - ~/.agents/.skill-lock.json for global installs (version 3;
//     $XDG_STATE_HOME/skills/.skill-lock.json when that is set): entries
//     add sourceUrl (the clone URL or the file's URL), skillPath (the
//     SKILL.md's path in the repository), skillFolderHash (GitHub's tree
//     id of the folder), installedAt, updatedAt and pluginName.
//
// It installs a project's skills into .agents/skills and links other
// agents' folders to them.
const (
	// SkillsLockFile is the skills CLI's project lock file.
	SkillsLockFile = "skills-lock.json"
	// SkillsGlobalLockFile is the skills CLI's global lock, under
	// ~/.agents (or $XDG_STATE_HOME/skills).
	SkillsGlobalLockFile = ".skill-lock.json"
)

type skillsCLILock struct {
	Version int                       `json:"version"`
	Skills  map[string]skillsCLIEntry `json:"skills"`
}

type skillsCLIEntry struct {
	Source          string `json:"source"`
	SourceType      string `json:"sourceType"`
	SourceURL       string `json:"sourceUrl"`
	SkillPath       string `json:"skillPath"`
	Ref             string `json:"ref"`
	ComputedHash    string `json:"computedHash"`
	SkillFolderHash string `json:"skillFolderHash"`
}

// readSkillsCLI reads one of the skills CLI's lock files. rel names it
// in proposals; root is the folder local sources are relative to.
func readSkillsCLI(file, rel, root string) ([]*Proposal, bool, error) {
	data, ok, err := readBounded(file)
	if !ok || err != nil {
		return nil, ok, err
	}
	var lock skillsCLILock
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&lock); err != nil {
		return nil, true, &FileError{File: file, Err: fmt.Errorf("not the skills CLI's JSON lock: %v", err)}
	}
	if lock.Version < 1 || lock.Skills == nil {
		return nil, true, &FileError{File: file, Err: fmt.Errorf("version %d with no skills object; want the skills CLI's lock (version 1 or 3)", lock.Version)}
	}
	if len(lock.Skills) > MaxEntries {
		return nil, true, &FileError{File: file, Err: fmt.Errorf("%d skills, more than %d", len(lock.Skills), MaxEntries)}
	}
	var out []*Proposal
	for name, e := range lock.Skills {
		if !skill.ValidName(name) {
			return nil, true, &FileError{File: file, Err: fmt.Errorf("skill %q: not a valid skill name (lowercase letters, digits and single hyphens)", clip(name))}
		}
		for _, v := range []string{e.Source, e.SourceType, e.SourceURL, e.SkillPath, e.Ref, e.ComputedHash, e.SkillFolderHash} {
			if !plain(v) {
				return nil, true, &FileError{File: file, Err: fmt.Errorf("skill %s: a field holds control characters or is too long", name)}
			}
		}
		out = append(out, fromSkillsCLI(name, e, rel, root))
	}
	return out, true, nil
}

// fromSkillsCLI maps one entry to a proposal.
func fromSkillsCLI(name string, e skillsCLIEntry, from, root string) *Proposal {
	p := &Proposal{Name: name, From: from, Kind: KindNone, Digest: e.ComputedHash}
	if e.SkillFolderHash != "" {
		p.Digest = "git-tree:" + e.SkillFolderHash
	}
	switch e.SourceType {
	case "github", "gitlab", "git":
		repo := e.SourceURL
		if repo == "" {
			repo = e.Source
			if e.SourceType != "git" && !strings.Contains(repo, "://") {
				repo = e.SourceType + ".com/" + strings.TrimSuffix(repo, ".git")
			}
		}
		if e.SourceType == "github" && strings.Count(e.Source, "/") == 1 && !strings.Contains(e.Source, ":") {
			repo = "github.com/" + e.Source // the short form people type
		}
		if _, err := giturl.Parse(repo); err != nil {
			p.note("source %q is not a git repository skillpm reads: %v", clip(repo), err)
			return p
		}
		if dir, ok := fileRepoOutside(repo, root); ok {
			// A checkout's lock file must not make skillpm read a
			// repository elsewhere on this machine, as local: may not.
			p.note("the repository %s is a folder outside the project: left as it is", clip(dir))
			return p
		}
		p.Kind, p.Entry.Git = KindGit, repo
		if e.SkillPath != "" {
			dir, ok := skillFolder(e.SkillPath)
			if !ok {
				p.Kind, p.Entry = KindNone, Entry{}
				p.note("skillPath %q leaves the repository", clip(e.SkillPath))
				return p
			}
			p.Entry.Path = dir
		} else {
			p.note("%s does not record the skill's folder in the repository: add path: when the repository holds more than one skill", from)
		}
		if e.Ref != "" {
			if _, err := giturl.Parse(repo + "#" + e.Ref); err != nil {
				p.Kind, p.Entry = KindNone, Entry{}
				p.note("ref %q is not a valid git ref", clip(e.Ref))
				return p
			}
			p.Entry.Ref = e.Ref
			p.Pinned = isCommit(e.Ref)
		}
		if !p.Pinned {
			p.note("the skills CLI recorded no commit (ref %q): the lock will pin the commit the ref names when skillpm first resolves it", e.Ref)
		}
	case "local":
		dir := e.Source
		if filepath.IsAbs(dir) {
			if rel, err := filepath.Rel(root, dir); err == nil && filepath.IsLocal(rel) {
				dir = "./" + filepath.ToSlash(rel)
			}
		}
		if rel := filepath.FromSlash(dir); filepath.IsAbs(rel) || !filepath.IsLocal(filepath.Clean(rel)) {
			// Never written to skills.yaml, which keeps local inside
			// the project: the rest of the import goes on.
			p.note("the folder %s is outside the project: left as it is", clip(dir))
			return p
		}
		p.Kind, p.Entry.Local = KindLocal, dir
	case "well-known":
		origin := wellKnownOrigin(e)
		if origin == "" {
			p.note("well-known source %q has no https origin", clip(e.Source))
			return p
		}
		p.Kind, p.Entry.WellKnown = KindWellKnown, origin
	default:
		p.note("source type %q (%s) has no skillpm source: the folder is left as it is", clip(e.SourceType), clip(e.Source))
	}
	return p
}

// fileRepoOutside reports whether repo is a file:// URL whose folder is
// not inside root, and returns that folder.
func fileRepoOutside(repo, root string) (string, bool) {
	u, err := url.Parse(repo)
	if err != nil || !strings.EqualFold(u.Scheme, "file") {
		return "", false
	}
	p := u.Path
	if len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:] // file:///C:/x
	}
	dir := filepath.FromSlash(p)
	if u.Host != "" && u.Host != "localhost" {
		return u.Host + u.Path, true // a UNC share: never inside the project
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsAbs(dir) || !filepath.IsLocal(rel) {
		return dir, true
	}
	return "", false
}

// wellKnownOrigin is the origin serving /.well-known/ of a well-known
// entry: sourceUrl up to /.well-known/, else the source as an https URL
// or host.
func wellKnownOrigin(e skillsCLIEntry) string {
	for _, s := range []string{e.SourceURL, e.Source} {
		if s == "" {
			continue
		}
		if before, _, ok := strings.Cut(s, "/.well-known/"); ok {
			s = before
		}
		if !strings.Contains(s, "://") {
			s = "https://" + s
		}
		u, err := url.Parse(s)
		if err == nil && u.Scheme == "https" && u.Host != "" && u.User == nil && u.RawQuery == "" {
			return strings.TrimSuffix(u.String(), "/")
		}
	}
	return ""
}

func clip(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}
