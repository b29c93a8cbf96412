package registry

import (
	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/registry/ociref"
)

// Reference names a skill repository and, optionally, one artifact in it.
// It is written as oras and helm write references,
// "registry.example.com/org/skills/pdf[:TAG|@sha256:…|@RANGE]", or as
// "oci:PATH[:TAG|@sha256:…|@RANGE]" for an OCI image layout folder
// (package ociref holds the syntax).
type Reference struct {
	// Layout is the folder of an OCI image layout; empty for a registry.
	Layout string
	// Registry is the registry host[:port]; empty for a layout.
	Registry string
	// Repository is the repository path inside Registry.
	Repository string
	// Tag is the OCI tag, with a semver "+" already written as "_".
	Tag string
	// Digest pins one manifest; it wins over Tag when both are set.
	Digest digest.Digest
	// Range is a semver constraint ("^1.2", ">=1 <2") chosen among the
	// repository's version tags.
	Range string
}

// ParseReference parses a registry or layout reference as
// ociref.Parse reads it.
func ParseReference(s string) (Reference, error) {
	r, err := ociref.Parse(s)
	if err != nil {
		return Reference{}, err
	}
	return Reference{Layout: r.Layout, Registry: r.Registry, Repository: r.Repository,
		Tag: r.Tag, Digest: digest.Digest(r.Digest), Range: r.Range}, nil
}

// IsLayout reports whether r names an OCI image layout folder.
func (r Reference) IsLayout() bool { return r.Layout != "" }

// Repo returns the repository without tag, digest or range.
func (r Reference) Repo() string {
	if r.IsLayout() {
		return ociref.LayoutPrefix + r.Layout
	}
	return r.Registry + "/" + r.Repository
}

// WithTag returns r naming tag (escaped) instead of any tag, digest or
// range.
func (r Reference) WithTag(tag string) Reference {
	r.Tag, r.Digest, r.Range = ociref.EscapeTag(tag), "", ""
	return r
}

// WithDigest returns r pinned to d.
func (r Reference) WithDigest(d digest.Digest) Reference {
	r.Tag, r.Digest, r.Range = "", d, ""
	return r
}

// String formats r as ParseReference reads it.
func (r Reference) String() string {
	s := r.Repo()
	if r.Tag != "" {
		s += ":" + r.Tag
	}
	switch {
	case r.Digest != "":
		s += "@" + r.Digest.String()
	case r.Range != "":
		s += "@" + r.Range
	}
	return s
}
