package ociref

import (
	"fmt"
	"strings"
)

// Mirror sends reads of the repositories under an upstream prefix to
// other locations first, in the style of containerd's hosts.toml: the
// lock keeps naming the upstream repository, and the client rewrites it
// at fetch time. Mirrors preserve manifest digests, so digest-pinned
// locks resolve the same bytes.
type Mirror struct {
	// Prefix is the upstream registry prefix, "ghcr.io/acme/skills".
	Prefix string `yaml:"prefix" json:"prefix"`
	// Locations are tried in order: registry prefixes
	// ("registry.internal/acme-skills") or folders of OCI layouts
	// ("oci:/srv/skills"); the path below Prefix is appended.
	Locations []string `yaml:"mirrors" json:"mirrors"`
	// Vetted makes the scope fail closed: when no mirror has what is
	// asked for, the read fails with registry.ErrNotVetted instead of
	// falling through to the upstream registry.
	Vetted bool `yaml:"vetted" json:"vetted"`
}

// Validate checks that m has a prefix, at least one parseable location.
func (m Mirror) Validate() error {
	p := CanonicalPrefix(m.Prefix)
	if strings.HasPrefix(p, LayoutPrefix) || strings.HasPrefix(p, "/") || p == "" || !strings.ContainsAny(p, "/.:") {
		return fmt.Errorf("mirror prefix %q: want a registry prefix such as ghcr.io/acme/skills", m.Prefix)
	}
	if _, err := Parse(p + "/x"); err != nil {
		// A prefix no repository is under ("ghcr.io/acme/*") would send
		// nothing to the mirror, a vetted scope's reads included.
		return fmt.Errorf("mirror prefix %q: no repository is under it (a prefix is not a pattern; want a registry prefix such as ghcr.io/acme/skills)", m.Prefix)
	}
	if len(m.Locations) == 0 {
		return fmt.Errorf("mirror %s: no mirrors listed", m.Prefix)
	}
	for _, l := range m.Locations {
		if _, err := Parse(strings.TrimRight(l, "/") + "/x"); err != nil {
			return fmt.Errorf("mirror %s: location %q: %v", m.Prefix, l, err)
		}
	}
	return nil
}
