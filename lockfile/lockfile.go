// Package lockfile reads and writes skills.lock: the digest-pinned closure
// of a project's skills. The bytes are deterministic (entries and keys
// sorted, no timestamps), so the same resolution always writes the same
// file and diffs stay small.
package lockfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/internal/atomicfile"
	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/skill"
	"gopkg.in/yaml.v3"
)

// FileName is the lock's name beside skills.yaml.
const FileName = "skills.lock"

// Version is the lock format version this package writes.
const Version = 1

const header = "# skills.lock is written by skillpm; do not edit it by hand.\n# It pins every skill of the project to a manifest digest.\n"

// File is a parsed skills.lock.
type File struct {
	// LockVersion is the format version.
	LockVersion int `yaml:"lockVersion"`
	// Inputs is the digest of the skills.yaml inputs the lock was
	// resolved from; a different digest means the lock is stale.
	Inputs string `yaml:"inputs"`
	// Skills are sorted by name.
	Skills []Skill `yaml:"skills"`
}

// Skill is one locked skill.
type Skill struct {
	Name    string `yaml:"name" json:"name"`
	Version string `yaml:"version" json:"version"`
	// Repository is the OCI repository the skill was resolved from
	// (host/path/name or oci:PATH), or, for a skill from another kind of
	// source, that source's location as skills.yaml names it:
	// git+URL[//PATH], local:PATH, wellknown+ORIGIN (see source.Entry).
	Repository string `yaml:"repository" json:"repository"`
	// Source pins a skill that does not come from an OCI registry to the
	// immutable id it was packed from; nil for OCI skills.
	Source *Source `yaml:"source,omitempty" json:"source,omitempty"`
	// Manifest is the digest of the skill's OCI manifest.
	Manifest string `yaml:"manifest" json:"manifest"`
	// Content is the digest of the content layer.
	Content string `yaml:"content" json:"content"`
	// Dependencies are the names of the skills this one depends on, as
	// resolved, sorted.
	Dependencies []string `yaml:"dependencies,omitempty" json:"dependencies,omitempty"`
	// Requested is true for skills skills.yaml asks for directly.
	Requested bool `yaml:"requested,omitempty" json:"requested,omitempty"`
	// Signer is the verified signer identity, when the skill was verified.
	Signer string `yaml:"signer,omitempty" json:"signer,omitempty"`
}

// Source is the immutable id of a skill packed from a source that is not
// an OCI registry. Its Manifest and Content digests are those of the
// reproducible artifact packed from exactly these files.
type Source struct {
	// Commit is the git commit (40 or 64 lowercase hex digits).
	Commit string `yaml:"commit,omitempty" json:"commit,omitempty"`
	// Ref is the tag or branch the commit came from ("refs/tags/v1.2.0",
	// "refs/heads/main"); "" for a commit named directly.
	Ref string `yaml:"ref,omitempty" json:"ref,omitempty"`
	// Digest is the sha256 digest of the files (a local folder's
	// content layer, a well-known index's artifact).
	Digest string `yaml:"digest,omitempty" json:"digest,omitempty"`
	// URL, for a well-known skill, is where the index said the artifact
	// is: relative to the origin when it lies under it
	// (".well-known/agent-skills/brand.tar.gz"), else absolute. Locks
	// written before it was recorded have none.
	URL string `yaml:"url,omitempty" json:"url,omitempty"`
}

// SourceKinds are the prefixes of Repository that name a source other
// than an OCI registry, with the kind each names.
var SourceKinds = map[string]string{"git+": "git", "local:": "local", "wellknown+": "wellknown"}

// SourceKind returns the kind of source a repository names ("git",
// "local", "wellknown"), or "" for an OCI repository.
func SourceKind(repository string) string {
	for p, k := range SourceKinds {
		if strings.HasPrefix(repository, p) {
			return k
		}
	}
	return ""
}

// ErrNotFound is returned by Read when there is no lock file.
var ErrNotFound = errors.New("skills.lock not found")

// Find returns the skill called name, or nil.
func (f *File) Find(name string) *Skill {
	i, ok := slices.BinarySearchFunc(f.Skills, name, func(s Skill, n string) int { return strings.Compare(s.Name, n) })
	if !ok {
		return nil
	}
	return &f.Skills[i]
}

// Normalize sorts entries and dependencies so the encoding is canonical.
func (f *File) Normalize() {
	f.LockVersion = Version
	slices.SortFunc(f.Skills, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	for i := range f.Skills {
		d := slices.Clone(f.Skills[i].Dependencies)
		slices.Sort(d)
		f.Skills[i].Dependencies = slices.Compact(d)
	}
}

// Marshal returns the canonical bytes of f.
func (f *File) Marshal() ([]byte, error) {
	c := *f
	c.Skills = slices.Clone(f.Skills)
	c.Normalize()
	var b bytes.Buffer
	b.WriteString(header)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ErrInvalid is wrapped by every error about a lock that cannot be used
// as written: not YAML, an unknown key, an incomplete or malformed entry.
// skills.lock is written only by skillpm, so any of these means it was
// edited by hand or by someone else.
var ErrInvalid = errors.New("invalid skills.lock")

// Parse decodes a lock and checks it with Validate.
func Parse(data []byte) (*File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse skills.lock: %w: %v", ErrInvalid, err)
	}
	if f.LockVersion != Version {
		return nil, fmt.Errorf("parse skills.lock: lockVersion %d is not supported (this skillpm writes %d); upgrade skillpm", f.LockVersion, Version)
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("parse skills.lock: %w", err)
	}
	return &f, nil
}

// Validate checks that the lock is well formed, on its own: every entry
// is complete, names are valid skill names (they become folder names),
// appear once and are sorted, versions are strict semver, digests are
// sha256 digests, and every dependency names another entry of the lock.
// Whether the lock agrees with skills.yaml is manager.CheckLock's job.
// Errors wrap ErrInvalid and name the entry.
func (f *File) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s; regenerate it with 'skillpm install'", ErrInvalid, fmt.Sprintf(format, args...))
	}
	if f.Inputs != "" && !ValidDigest(f.Inputs) {
		return bad("inputs %q is not a sha256 digest", f.Inputs)
	}
	names := make(map[string]bool, len(f.Skills))
	for i, s := range f.Skills {
		if s.Name == "" || s.Version == "" || s.Repository == "" || s.Manifest == "" {
			return bad("entry %d (%q) is incomplete: it needs name, version, repository and a sha256 manifest digest", i+1, s.Name)
		}
		// A name becomes a folder name: anything else could make an
		// install write outside its target.
		if !skill.ValidName(s.Name) {
			return bad("entry %d: %q is not a valid skill name (lowercase letters, digits and single hyphens)", i+1, s.Name)
		}
		if names[s.Name] {
			return bad("%q appears twice", s.Name)
		}
		names[s.Name] = true
		if i > 0 && f.Skills[i-1].Name >= s.Name {
			return bad("entries are not sorted by name (%q after %q)", s.Name, f.Skills[i-1].Name)
		}
		if _, err := semver.StrictNewVersion(s.Version); err != nil {
			return bad("%s: version %q is not a semver version", s.Name, s.Version)
		}
		if !ValidDigest(s.Manifest) {
			return bad("%s: manifest %q is not a sha256 digest", s.Name, s.Manifest)
		}
		if s.Content != "" && !ValidDigest(s.Content) {
			return bad("%s: content %q is not a sha256 digest", s.Name, s.Content)
		}
		if err := s.validateSource(); err != nil {
			return bad("%s: %v", s.Name, err)
		}
		for _, d := range s.Dependencies {
			if !skill.ValidName(d) {
				return bad("%s: dependency %q is not a valid skill name", s.Name, d)
			}
		}
	}
	for _, s := range f.Skills {
		for _, d := range s.Dependencies {
			if !names[d] {
				return bad("%s depends on %q, which has no entry", s.Name, d)
			}
		}
	}
	return nil
}

// validateSource checks that an entry has a source pin exactly when its
// repository names a source, and that the pin is well formed.
func (s Skill) validateSource() error {
	kind := SourceKind(s.Repository)
	switch {
	case kind == "" && s.Source != nil:
		return fmt.Errorf("repository %q is an OCI repository, but the entry pins a source", s.Repository)
	case kind == "":
		return nil
	case s.Source == nil:
		return fmt.Errorf("%s source %q has no source pin (commit or digest)", kind, s.Repository)
	}
	p := s.Source
	if p.Commit != "" && !validCommit(p.Commit) {
		return fmt.Errorf("source commit %q is not a full commit id", p.Commit)
	}
	if p.Digest != "" && !ValidDigest(p.Digest) {
		return fmt.Errorf("source digest %q is not a sha256 digest", p.Digest)
	}
	if p.Ref != "" && (!strings.HasPrefix(p.Ref, "refs/") || strings.ContainsAny(p.Ref, " \t\n:~^?*[\\") || strings.Contains(p.Ref, "..")) {
		return fmt.Errorf("source ref %q is not a tag or branch", p.Ref)
	}
	switch {
	case kind == "git" && (p.Commit == "" || p.Digest != ""):
		return fmt.Errorf("a git source pins a commit (and the ref it came from), not a digest")
	case kind != "git" && (p.Digest == "" || p.Commit != "" || p.Ref != ""):
		return fmt.Errorf("a %s source pins a content digest, not a commit", kind)
	case p.URL != "" && kind != "wellknown":
		return fmt.Errorf("a %s source records no artifact URL", kind)
	case len(p.URL) > 2048 || strings.ContainsFunc(p.URL, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("source url %q is not a URL", trimURL(p.URL))
	}
	return nil
}

func validCommit(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// ValidDigest reports whether s is "sha256:" and 64 lowercase hex digits,
// the only digests a lock holds.
func ValidDigest(s string) bool {
	hex, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range hex {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// MaxFileSize bounds skills.lock: a repository's file is hostile input,
// and a lock of ten thousand skills is far smaller.
const MaxFileSize = 32 << 20

// Read reads the lock at path: a regular file (a link to one is
// followed) of at most MaxFileSize bytes. A missing file returns
// ErrNotFound; a FIFO, device or larger file, ErrInvalid.
func Read(path string) (*File, error) {
	data, err := readBytes(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// readBytes reads the lock file's bytes as Read describes.
func readBytes(path string) ([]byte, error) {
	data, err := boundedfile.Read(path, MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotFound)
	}
	if errors.Is(err, boundedfile.ErrNotRegular) || errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, fmt.Errorf("%s: %w: %w; skills.lock must be a regular file of at most %d bytes", path, ErrInvalid, err, MaxFileSize)
	}
	return data, err
}

// Write writes f to path atomically: a reader sees the old lock or the new
// one, never a mix.
func Write(path string, f *File) error {
	data, err := f.Marshal()
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, data, 0o644)
}

// WriteFileAtomic writes data to a temporary file beside path, syncs it,
// renames it over path and syncs the folder (internal/atomicfile, the one
// helper the lock, skills.yaml, install records and the cache share).
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	return atomicfile.WriteFile(path, data, perm)
}

func trimURL(u string) string {
	if len(u) > 80 {
		return u[:80] + "…"
	}
	return u
}
