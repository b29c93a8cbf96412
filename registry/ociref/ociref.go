// Package ociref is how skillpm writes where skill repositories live:
// references to a registry repository or an OCI image layout folder
// ("ghcr.io/acme/skills/pdf:1.0.0", "oci:./registry/pdf@^1"), the
// canonical form of hosts and repository prefixes that trust policies and
// mirrors compare, version tags, and the mirrors that send reads of an
// upstream prefix to other locations.
//
// It checks syntax only, as oras-go and go-digest do, and links neither:
// configuration that names locations is read and checked without a
// registry client. Package registry builds its Reference on Parse and
// reads through mirrors.
package ociref

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// LayoutPrefix starts a reference to a local OCI image layout folder.
const LayoutPrefix = "oci:"

// Ref is a reference as written, split into its parts. Package registry
// turns it into a registry.Reference.
type Ref struct {
	// Layout is the folder of an OCI image layout; empty for a registry.
	Layout string
	// Registry is the registry host[:port], as CanonicalHost writes it;
	// empty for a layout.
	Registry string
	// Repository is the repository path inside Registry.
	Repository string
	// Tag is the OCI tag, with a semver "+" already written as "_".
	Tag string
	// Digest is ALGORITHM:HEX, checked as go-digest checks it.
	Digest string
	// Range is a semver constraint ("^1.2", ">=1 <2").
	Range string
}

// ErrInvalidReference is wrapped by errors about a registry, repository
// or tag that a registry would not accept (oras-go's rules).
var ErrInvalidReference = errors.New("invalid reference")

// Parse reads a registry or layout reference,
// "REGISTRY/REPOSITORY[:TAG|@DIGEST|@RANGE]" or
// "oci:PATH[:TAG|@DIGEST|@RANGE]". The registry host is stored as
// CanonicalHost returns it. A tag that is a semver version with build
// metadata may be written with "+"; it is stored as the "_" tag (Helm's
// rule). After "@", a value of the form ALGORITHM:HEX is a digest and
// anything else a semver range.
func Parse(s string) (Ref, error) {
	if s == "" {
		return Ref{}, fmt.Errorf("empty reference")
	}
	var r Ref
	rest := s
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		at := rest[i+1:]
		rest = rest[:i]
		if strings.Contains(at, ":") && !strings.ContainsAny(at, " <>=^~") {
			if err := validDigest(at); err != nil {
				return Ref{}, fmt.Errorf("reference %q: invalid digest %q: %v", s, at, err)
			}
			r.Digest = at
		} else {
			if _, err := semver.NewConstraint(at); err != nil {
				return Ref{}, fmt.Errorf("reference %q: invalid version range %q: %v", s, at, err)
			}
			r.Range = at
		}
	}
	if layout, ok := strings.CutPrefix(rest, LayoutPrefix); ok {
		path, tag := splitTag(layout)
		if path == "" {
			return Ref{}, fmt.Errorf("reference %q: missing layout path after %q", s, LayoutPrefix)
		}
		r.Layout, r.Tag = filepath.Clean(path), EscapeTag(tag)
		return r, r.validTag(s)
	}
	repo, tag := splitTag(rest)
	host, path, ok := strings.Cut(repo, "/")
	if !ok || host == "" || path == "" {
		return Ref{}, fmt.Errorf("reference %q: want REGISTRY/REPOSITORY (e.g. ghcr.io/org/skills/pdf) or oci:PATH", s)
	}
	if strings.HasSuffix(host, ":") {
		// An empty port dials the default one: one registry under two
		// names, to a trust policy and a mirror.
		return Ref{}, fmt.Errorf("reference %q: %w: registry %q has an empty port", s, ErrInvalidReference, host)
	}
	host = CanonicalHost(host)
	r.Registry, r.Repository, r.Tag = host, path, EscapeTag(tag)
	if err := validRepo(host, path); err != nil {
		return Ref{}, fmt.Errorf("reference %q: %w", s, err)
	}
	return r, r.validTag(s)
}

// CanonicalHost returns a registry host[:port] as skillpm stores and
// compares it: lower-case (host names are case-insensitive), without a
// trailing dot (the DNS root) or the default HTTPS port, with the
// port's leading zeros dropped, and with Docker
// Hub's aliases ("index.docker.io", "registry-1.docker.io") written
// "docker.io", so "GHCR.IO", "ghcr.io.:443" and "ghcr.io" are one
// registry to a trust policy and a mirror as they are to the network.
// Other names for one machine ("localhost" and "127.0.0.1") stay apart:
// nothing but DNS says they are the same registry.
func CanonicalHost(host string) string {
	h := strings.ToLower(strings.TrimSpace(host))
	name, port := h, ""
	if i := strings.LastIndex(h, ":"); i >= 0 && !strings.Contains(h[i:], "]") {
		name, port = h[:i], h[i:]
	}
	if strings.Contains(name, ":") && !strings.HasSuffix(name, "]") {
		return h // two ports: no host the network dials, left to fail
	}
	// The network reads the port as a number: "0443" is 443.
	if n, err := strconv.ParseUint(strings.TrimPrefix(port, ":"), 10, 16); err == nil {
		port = ":" + strconv.FormatUint(n, 10)
	}
	if port == ":443" {
		port = ""
	}
	name = strings.TrimSuffix(name, ".")
	if name == "index.docker.io" || name == "registry-1.docker.io" {
		name = "docker.io" // oras-go dials docker.io at registry-1.docker.io
	}
	return name + port
}

// CanonicalPrefix returns a repository prefix as skillpm compares them,
// the one rule for trust policy prefixes, mirror prefixes and the
// repositories matched against them. A registry prefix ("ghcr.io",
// "ghcr.io/acme/skills") loses any http:// or https:// scheme, empty
// path segments and trailing slashes, has its host written as
// CanonicalHost does and its path in lower case (OCI repository names
// are lower-case, so an upper-case prefix could match nothing); an
// "oci:PATH" prefix has its path cleaned; "*" stays "*". So
// "https://GHCR.IO:443/acme/skills/" and "ghcr.io/acme/skills" are one
// prefix, and "oci:./registry/" and "oci:registry" another.
func CanonicalPrefix(s string) string {
	s = strings.TrimSpace(s)
	if s == "*" {
		return s
	}
	if rest, ok := strings.CutPrefix(s, LayoutPrefix); ok {
		return LayoutPrefix + filepath.ToSlash(filepath.Clean(rest))
	}
	for _, scheme := range []string{"https://", "http://"} {
		if len(s) >= len(scheme) && strings.EqualFold(s[:len(scheme)], scheme) {
			s = s[len(scheme):]
			break
		}
	}
	host, path, _ := strings.Cut(s, "/")
	out := CanonicalHost(host)
	for seg := range strings.SplitSeq(path, "/") {
		if seg != "" {
			out += "/" + strings.ToLower(seg)
		}
	}
	return out
}

// splitTag splits "repo:tag" at a colon after the last slash.
func splitTag(s string) (repo, tag string) {
	i := strings.LastIndex(s, ":")
	if i < 0 || i < strings.LastIndex(s, "/") {
		return s, ""
	}
	return s[:i], s[i+1:]
}

func (r Ref) validTag(s string) error {
	if r.Tag == "" {
		return nil
	}
	if !tagRE().MatchString(r.Tag) {
		return fmt.Errorf("reference %q: invalid tag %q", s, r.Tag)
	}
	if r.Range != "" {
		return fmt.Errorf("reference %q: give a tag or a range, not both", s)
	}
	return nil
}

// EscapeTag writes a version as a tag: "+" (not allowed in OCI tags)
// becomes "_", as Helm does.
func EscapeTag(version string) string { return strings.ReplaceAll(version, "+", "_") }

// VersionFromTag returns the semver version a tag stands for, turning
// "_" back into "+". It reports false for tags that are not strict
// semver ("latest", "v1", "sha256-….sig" and other signature or
// attestation tags).
func VersionFromTag(tag string) (*semver.Version, bool) {
	if strings.HasPrefix(tag, "sha256-") || strings.HasSuffix(tag, ".sig") || strings.HasSuffix(tag, ".att") {
		return nil, false
	}
	v, err := semver.StrictNewVersion(strings.ReplaceAll(tag, "_", "+"))
	if err != nil {
		return nil, false
	}
	return v, true
}
