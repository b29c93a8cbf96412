package importer

import (
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source/giturl"
)

// ToolHiveLockFile is ToolHive's project lock ("thv skill install
// --project"), at a project's root: YAML {version: 1, skills: [entry],
// plugins: [entry]}, each skill entry with name, version (the
// frontmatter's), source (as the user asked: a registry name, an OCI
// reference or git://host/owner/repo[@ref][#path]), resolvedReference
// (the OCI reference or git:// URL it resolved to), digest (the OCI
// digest pulled, or the full git commit), contentDigest, provenance,
// unsigned, requiredBy and explicit.
const ToolHiveLockFile = "toolhive.lock.yaml"

type toolHiveLock struct {
	Version int             `yaml:"version"`
	Skills  []toolHiveEntry `yaml:"skills"`
}

type toolHiveEntry struct {
	Name              string   `yaml:"name"`
	Version           string   `yaml:"version"`
	Source            string   `yaml:"source"`
	ResolvedReference string   `yaml:"resolvedReference"`
	Digest            string   `yaml:"digest"`
	ContentDigest     string   `yaml:"contentDigest"`
	RequiredBy        []string `yaml:"requiredBy"`
	Explicit          bool     `yaml:"explicit"`
}

func readToolHive(file, rel string) ([]*Proposal, bool, error) {
	data, ok, err := readBounded(file)
	if !ok || err != nil {
		return nil, ok, err
	}
	var lock toolHiveLock
	if err := yaml.Unmarshal(data, &lock); err != nil {
		return nil, true, &FileError{File: file, Err: fmt.Errorf("not ToolHive's lock YAML: %v", err)}
	}
	if lock.Version != 1 {
		return nil, true, &FileError{File: file, Err: fmt.Errorf("version %d; skillpm reads ToolHive's lock version 1", lock.Version)}
	}
	if len(lock.Skills) > MaxEntries {
		return nil, true, &FileError{File: file, Err: fmt.Errorf("%d skills, more than %d", len(lock.Skills), MaxEntries)}
	}
	var out []*Proposal
	for _, e := range lock.Skills {
		if !skill.ValidName(e.Name) {
			return nil, true, &FileError{File: file, Err: fmt.Errorf("skill %q: not a valid skill name (lowercase letters, digits and single hyphens)", clip(e.Name))}
		}
		for _, v := range append([]string{e.Version, e.Source, e.ResolvedReference, e.Digest, e.ContentDigest}, e.RequiredBy...) {
			if !plain(v) {
				return nil, true, &FileError{File: file, Err: fmt.Errorf("skill %s: a field holds control characters or is too long", e.Name)}
			}
		}
		out = append(out, fromToolHive(e, rel))
	}
	return out, true, nil
}

func fromToolHive(e toolHiveEntry, from string) *Proposal {
	p := &Proposal{Name: e.Name, From: from, Kind: KindNone, Digest: e.Digest}
	if len(e.RequiredBy) > 0 && !e.Explicit {
		p.note("ToolHive installed it for %s", strings.Join(e.RequiredBy, ", "))
	}
	ref := e.ResolvedReference
	if ref == "" {
		ref = e.Source
	}
	if strings.HasPrefix(ref, "git://") {
		fromToolHiveGit(p, ref, e.Digest)
		return p
	}
	r, err := registry.ParseReference(ref)
	if err != nil || r.IsLayout() || !strings.Contains(ref, "/") {
		p.note("source %q is not an OCI reference or git:// URL (a ToolHive registry name resolves only through ToolHive)", clip(ref))
		return p
	}
	repo := r.Repo()
	if base := path.Base(r.Repository); base != e.Name {
		p.note("repository %s is not named for the skill %s: skillpm finds a skill at PREFIX/NAME", clip(repo), e.Name)
		return p
	}
	version := ""
	if v, ok := ociref.VersionFromTag(ociref.EscapeTag(e.Version)); ok && e.Version != "" {
		version = v.Original()
	} else if v, ok := ociref.VersionFromTag(r.Tag); ok {
		version = v.Original()
	}
	if version == "" {
		p.note("%s has no semver version or tag (tag %q): skillpm resolves OCI skills by version tags; publish it with one", clip(repo), r.Tag)
		return p
	}
	p.Kind, p.Pinned = KindOCI, true
	p.Entry = Entry{Registry: path.Dir(repo), Version: version}
	if e.Digest != "" && !digestRE().MatchString(e.Digest) {
		p.note("recorded digest %q is not a sha256 digest", clip(e.Digest))
		p.Digest = ""
	}
	return p
}

// fromToolHiveGit maps git://host/owner/repo[@ref][#path]; digest is the
// commit ToolHive installed.
func fromToolHiveGit(p *Proposal, ref, digest string) {
	rest := strings.TrimPrefix(ref, "git://")
	rest, sub, _ := strings.Cut(rest, "#")
	rest, gitRef, _ := strings.Cut(rest, "@")
	host, _, _ := strings.Cut(rest, "/")
	repo := rest
	switch strings.ToLower(host) {
	case "github.com", "gitlab.com", "bitbucket.org", "codeberg.org":
	default:
		repo = "https://" + rest
	}
	if _, err := giturl.Parse(repo); err != nil {
		p.note("git source %q is not a repository skillpm reads: %v", clip(ref), err)
		return
	}
	dir, ok := skillFolder(sub)
	if !ok {
		p.note("git path %q leaves the repository", clip(sub))
		return
	}
	p.Kind, p.Entry = KindGit, Entry{Git: repo, Path: dir, Ref: gitRef}
	if isCommit(digest) {
		p.Entry.Ref, p.Pinned = digest, true
		if gitRef != "" && gitRef != digest {
			p.note("pinned to the commit ToolHive installed (%s asked for %s)", digest[:12], gitRef)
		}
	} else if gitRef != "" {
		if _, err := giturl.Parse(repo + "#" + gitRef); err != nil {
			p.Kind, p.Entry = KindNone, Entry{}
			p.note("ref %q is not a valid git ref", clip(gitRef))
		}
	}
}
