// Package giturl reads the git sources people write in skills.yaml and on
// the command line (github.com/owner/repo/sub@v1, git@host:repo.git,
// https://host/repo.git//sub#ref, file:///srv/repo.git) into a repository
// URL, a folder and a ref, and redacts credentials in repository URLs for
// messages. It runs no git and links no registry client, so packages that
// only check skills.yaml (package project) stay light; package source/git
// fetches what a Source names.
package giturl

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/skillpm/skillpm/internal/lazyre"
)

// ErrSource is wrapped by errors about a source string that cannot name
// a git repository.
var ErrSource = errors.New("invalid git source")

// Source is a parsed git source: a repository, an optional folder inside
// it, and an optional ref.
type Source struct {
	// URL is what git is given: https://, ssh://, git://, file:// or the
	// scp-like user@host:path.
	URL string
	// Subdir is the folder of the skill (or of several skills) inside the
	// repository, slash-separated, "" for the root.
	Subdir string
	// Ref is a tag, a branch or a commit; "" means the default branch,
	// or the highest semver tag when versions are asked for.
	Ref string
}

// shortHosts are the hosts whose repositories are written without a
// scheme: github.com/owner/repo[/sub/dir].
var shortHosts = map[string]bool{"github.com": true, "gitlab.com": true, "bitbucket.org": true, "codeberg.org": true}

var scpLike = lazyre.New(`^([A-Za-z0-9._-]+@)?([A-Za-z0-9.-]+):([^/:][^:]*)$`)

// Parse reads a git source as people type it:
//
//	github.com/owner/repo                  https://github.com/owner/repo.git
//	github.com/owner/repo/skills/pdf       a folder of a monorepo
//	github.com/owner/repo@v1.2.0           a ref after @ (tag, branch, commit)
//	https://host/group/repo.git//skills/pdf   "//" separates the folder
//	git@github.com:owner/repo.git          scp-like SSH
//	ssh://git@host/repo.git, git://host/repo, file:///srv/repo.git
//
// A ref may also be given with "#": https://host/repo.git#v1.2.0.
func Parse(s string) (Source, error) {
	orig := s
	if s == "" {
		return Source{}, fmt.Errorf("%w: empty", ErrSource)
	}
	if strings.Contains(s, "::") || strings.HasPrefix(s, "-") {
		// git's transport::address syntax (ext:: runs commands) and
		// option-like strings are never repositories to skillpm.
		return Source{}, fmt.Errorf("%w: %q: not a repository URL", ErrSource, orig)
	}
	var src Source
	if i := strings.LastIndex(s, "#"); i >= 0 {
		s, src.Ref = s[:i], s[i+1:]
	}
	switch {
	case strings.Contains(s, "://"):
		u, err := url.Parse(s)
		if err != nil {
			return Source{}, fmt.Errorf("%w: %q: %v", ErrSource, orig, err)
		}
		switch u.Scheme {
		case "https", "http", "ssh", "git", "file":
		default:
			return Source{}, fmt.Errorf("%w: %q: scheme %q (want https, ssh, git or file)", ErrSource, orig, u.Scheme)
		}
		p := u.Path
		if i := strings.Index(p, "//"); i >= 0 {
			p, src.Subdir = p[:i], p[i+2:]
			if sub, ref, ok := strings.Cut(src.Subdir, "@"); ok && src.Ref == "" {
				src.Subdir, src.Ref = sub, ref
			}
		} else if u.Scheme != "file" {
			// https://github.com/owner/repo/tree/REF/sub or .../sub: a
			// short host's repository is its first two segments.
			if shortHosts[strings.ToLower(u.Hostname())] {
				p, src.Subdir, src.Ref = splitShort(strings.TrimPrefix(p, "/"), src.Ref)
				p = "/" + p
			}
		}
		if src.Ref == "" {
			p, src.Ref = cutRef(p)
		}
		u.Path = p
		src.URL = u.String()
	case scpLike().MatchString(s) && !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "/"):
		repo := s
		if i := strings.Index(repo, "//"); i >= 0 {
			repo, src.Subdir = repo[:i], repo[i+2:]
			if sub, ref, ok := strings.Cut(src.Subdir, "@"); ok && src.Ref == "" {
				src.Subdir, src.Ref = sub, ref
			}
		}
		if src.Ref == "" {
			repo, src.Ref = cutRef(repo)
		}
		src.URL = repo
	default:
		host, rest, ok := strings.Cut(s, "/")
		if !ok || !shortHosts[strings.ToLower(host)] {
			return Source{}, fmt.Errorf("%w: %q: want a git URL (https://, ssh://, git@host:path, file://) or HOST/OWNER/REPO for %s", ErrSource, orig, shortHostList())
		}
		var repo string
		repo, src.Subdir, src.Ref = splitShort(rest, src.Ref)
		src.URL = "https://" + strings.ToLower(host) + "/" + repo
	}
	for _, seg := range strings.Split(src.Subdir, "/") {
		if seg == ".." {
			return Source{}, fmt.Errorf("%w: %q: the folder may not leave the repository", ErrSource, orig)
		}
	}
	src.Subdir = strings.Trim(path.Clean("/"+src.Subdir), "/")
	if src.Ref != "" && !validRef(src.Ref) {
		return Source{}, fmt.Errorf("%w: %q: %q is not a valid ref", ErrSource, orig, src.Ref)
	}
	return src, nil
}

// splitShort splits OWNER/REPO[/tree/REF][/SUB...][@REF] of a short host.
// The ref is everything after the first "@": refs may hold slashes
// (pdf/v1.2.0), names of owners, repositories and folders may not hold @.
func splitShort(rest, ref string) (repo, sub, outRef string) {
	if p, r, ok := strings.Cut(rest, "@"); ok && ref == "" {
		rest, ref = p, r
	}
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	if len(parts) < 2 {
		return rest, "", ref
	}
	repo = parts[0] + "/" + strings.TrimSuffix(parts[1], ".git")
	subParts := parts[2:]
	// GitHub's and GitLab's web URLs: /tree/REF/sub or /-/tree/REF/sub.
	if len(subParts) >= 1 && subParts[0] == "-" {
		subParts = subParts[1:]
	}
	if len(subParts) >= 2 && (subParts[0] == "tree" || subParts[0] == "blob") {
		if ref == "" {
			ref = subParts[1]
		}
		subParts = subParts[2:]
	}
	return repo + ".git", strings.Join(subParts, "/"), ref
}

// cutRef splits "repo@ref" where the @ is in the last path segment (so
// that user@host stays whole).
func cutRef(p string) (string, string) {
	i := strings.LastIndex(p, "@")
	if i < 0 || i < strings.LastIndex(p, "/") || i < strings.LastIndex(p, ":") {
		return p, ""
	}
	return p[:i], p[i+1:]
}

var refRE = lazyre.New(`^[A-Za-z0-9._/@+-]+$`)

// validRef accepts what git check-ref-format accepts for the refs people
// name, and refuses what could be read as an option or a revision range.
func validRef(r string) bool {
	return refRE().MatchString(r) && !strings.HasPrefix(r, "-") && !strings.Contains(r, "..") &&
		!strings.HasSuffix(r, ".lock") && !strings.HasSuffix(r, "/") && !strings.Contains(r, "//")
}

func shortHostList() string {
	return "github.com, gitlab.com, bitbucket.org or codeberg.org"
}

// Redact returns u with any password or token in it replaced, for
// messages: https://user:secret@host/r → https://user:xxxxx@host/r.
func Redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	if _, has := p.User.Password(); has {
		p.User = url.UserPassword(p.User.Username(), "xxxxx")
	} else if strings.Contains(p.Scheme, "http") && p.User.Username() != "" {
		// A lone user name over HTTPS is usually a token.
		p.User = url.User("xxxxx")
	}
	return p.String()
}
