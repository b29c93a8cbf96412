// Package wellknown reads skills from an origin that serves the Agent
// Skills discovery index (https://agentskills.io/well-known-uri):
// https://ORIGIN[/path]/.well-known/agent-skills/index.json, with
// /.well-known/skills/index.json as a fallback for publishers that kept
// the legacy path, and writes such a static tree from skill folders.
//
// Everything an origin serves is treated as hostile: the index and every
// artifact are read with bounded size and time (internal/httpbound), names
// are checked, entry URLs must stay on the index's origin unless the
// caller allows another, and each artifact's sha256 digest is checked
// before a byte of it is extracted. Archives (.tar.gz and .zip) and single
// SKILL.md files all go through registry.Unpack, so they meet the same
// checks as an OCI layer: no traversal, no escaping links, no devices,
// size and file-count limits. Downloads are cached by digest, so a warm
// export needs no network.
package wellknown

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source/wellknown/discovery"
)

// SchemaURI is the $schema of the discovery index this package reads and
// writes.
const SchemaURI = "https://schemas.agentskills.io/discovery/0.2.0/schema.json"

// Entry types.
const (
	TypeSkillMD = "skill-md" // one SKILL.md file
	TypeArchive = "archive"  // a .tar.gz or .zip of the skill folder
)

// Errors a caller tells apart; each is wrapped with the origin and the
// skill named.
var (
	// ErrNotFound: the origin serves no index at either location, or an
	// artifact the index names is not there.
	ErrNotFound = errors.New("not found")
	// ErrUnknownSkill: the index does not list the skill asked for.
	ErrUnknownSkill = errors.New("unknown skill")
	// ErrInvalidIndex: the index is not JSON, not the 0.2.0 shape, or
	// has a bad entry (name, URL, digest format, duplicates, too many).
	ErrInvalidIndex = discovery.ErrInvalidIndex
	// ErrNoDigest: an index entry has no sha256 digest (a legacy v0.1
	// index), so what it serves cannot be pinned or checked.
	ErrNoDigest = errors.New("no digest")
	// ErrIntegrity: an artifact does not match the digest the index
	// gives, or is larger than the limits allow.
	ErrIntegrity = errors.New("integrity check failed")
	// ErrInsecure: the origin or an entry URL is plain http (and not
	// loopback or allowed), the origin carries credentials, or an entry
	// URL leaves the index's origin.
	ErrInsecure = discovery.ErrInsecure
	// ErrNetwork: the origin could not be reached, timed out or failed.
	ErrNetwork = errors.New("origin unreachable")
)

// Client reads discovery indexes and their artifacts. The zero value
// works, with default limits and timeouts and no cache.
type Client struct {
	// HTTP is the client used; nil builds one from Timeouts.
	HTTP *http.Client
	// Timeouts bound each exchange (connect, response header, stall).
	Timeouts httpbound.Timeouts
	// Limits bound what is read and unpacked: the index is at most
	// MaxManifestSize bytes with at most MaxListItems entries (but never
	// more than MaxEntries), an artifact at most MaxBlobSize, and
	// unpacking is bounded as for an OCI layer.
	Limits registry.Limits
	// CacheDir keeps verified artifacts by digest; "" caches nothing.
	CacheDir string
	// PlainHTTP lists hosts (host or host:port) read over plain http.
	// Loopback hosts always may be.
	PlainHTTP []string
	// AllowOrigins lists origins ("https://cdn.example.com") other than
	// the index's own that entry URLs may point at. Their artifacts are
	// still checked against the index's digests.
	AllowOrigins []string
	// UserAgent is sent with every request; "" sends "skillpm".
	UserAgent string

	once sync.Once
	hc   *http.Client
}

// MaxEntries bounds the entries of one index, whatever Limits say.
const MaxEntries = 10000

// Index is a discovery index as read from an origin.
type Index struct {
	// URL is where the index was read.
	URL string `json:"url"`
	// Schema is its $schema ("" when absent).
	Schema string `json:"$schema,omitempty"`
	// Legacy reports that it was read from discovery.LegacyIndexPath.
	Legacy bool `json:"legacy,omitempty"`
	// Skills are its entries, sorted by name.
	Skills []Entry `json:"skills"`
	// Skipped names entries of a type this package does not know; the
	// spec says to skip them and warn.
	Skipped []string `json:"skipped,omitempty"`
}

// Entry is one skill of an index.
type Entry struct {
	Name        string `json:"name"`
	Type        string `json:"type"` // TypeSkillMD or TypeArchive
	Description string `json:"description"`
	// URL is the artifact's absolute URL, resolved against the index.
	URL string `json:"url"`
	// Digest is "sha256:" and 64 lowercase hex digits.
	Digest string `json:"digest"`
	// Version is the optional semantic version the publisher gives.
	Version string `json:"version,omitempty"`
}

// Find returns the entry named name, or an error wrapping
// ErrUnknownSkill that lists what the index holds.
func (x *Index) Find(name string) (Entry, error) {
	for _, e := range x.Skills {
		if e.Name == name {
			return e, nil
		}
	}
	names := make([]string, 0, len(x.Skills))
	for _, e := range x.Skills {
		names = append(names, e.Name)
	}
	held := "none"
	if len(names) > 0 {
		held = strings.Join(names, ", ")
	}
	return Entry{}, fmt.Errorf("%s: %w %q (the index lists: %s)", x.URL, ErrUnknownSkill, name, held)
}

// allowedScheme refuses plain http except to loopback hosts and the
// hosts the client lists.
func (c *Client) allowedScheme(u *url.URL) error {
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) || slices.Contains(c.PlainHTTP, u.Host) || slices.Contains(c.PlainHTTP, u.Hostname()) {
			return nil
		}
		return fmt.Errorf("%w: %s is plain http; use https, or list %s under plain_http in config.yaml", ErrInsecure, u.Redacted(), u.Host)
	}
	return fmt.Errorf("%w: %s: only https URLs are read", ErrInsecure, u.Redacted())
}

// allowedRedirect checks a redirect from prev to next of a request that
// began at first: next must be a URL the client reads at all, must not
// step down from https to plain http, and must not lead from another
// host to this machine's loopback (an origin may not use skillpm to
// reach services listening on the user's machine).
func (c *Client) allowedRedirect(first, prev, next *url.URL) error {
	if err := c.allowedScheme(next); err != nil {
		return err
	}
	if prev.Scheme == "https" && next.Scheme != "https" {
		return fmt.Errorf("%w: %s redirects from https to %s", ErrInsecure, prev.Redacted(), next.Redacted())
	}
	if isLoopback(next.Hostname()) && !isLoopback(first.Hostname()) {
		return fmt.Errorf("%w: %s redirects to this machine (%s)", ErrInsecure, first.Redacted(), next.Redacted())
	}
	return nil
}

// isLoopback reports whether host is this machine: localhost, a
// loopback address, or an unspecified one (0.0.0.0 and [::] reach this
// machine's services too).
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// originOf is scheme://host[:port].
func originOf(u *url.URL) string { return u.Scheme + "://" + u.Host }

// sameOrigin reports whether entry may be read for an index at base.
func (c *Client) sameOrigin(base, entry *url.URL) bool {
	o := originOf(entry)
	return o == originOf(base) || slices.Contains(c.AllowOrigins, o)
}

// client returns the HTTP client, built once.
func (c *Client) client() *http.Client {
	c.once.Do(func() {
		if c.HTTP != nil {
			c.hc = c.HTTP
			return
		}
		hc := &http.Client{Transport: httpbound.Wrap(httpbound.NewTransport(c.Timeouts), c.Timeouts)}
		hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if len(via) >= 10 {
				return errors.New("stopped after 10 redirects")
			}
			return c.allowedRedirect(via[0].URL, via[len(via)-1].URL, req.URL)
		}
		c.hc = hc
	})
	return c.hc
}
