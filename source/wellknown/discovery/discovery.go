// Package discovery holds what of the Agent Skills discovery index
// (https://agentskills.io/well-known-uri) is needed without reading one:
// where the index lives below an origin, and how origins are written. It
// fetches nothing and links no HTTP client or registry code, so packages
// that only check what a skills.yaml names (package project) stay light;
// package source/wellknown reads indexes and their artifacts.
package discovery

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// The index locations below an origin, current first.
const (
	IndexPath       = "/.well-known/agent-skills/index.json"
	LegacyIndexPath = "/.well-known/skills/index.json"
)

// Errors of ParseOrigin; package wellknown gives them under the same
// names for everything it reads.
var (
	// ErrInvalidIndex: the origin, an index or an entry cannot be used.
	ErrInvalidIndex = errors.New("invalid discovery index")
	// ErrInsecure: a URL is plain http where that is not allowed, carries
	// credentials, or leaves the index's origin.
	ErrInsecure = errors.New("refused insecure or foreign URL")
)

// ParseOrigin reads an origin as a user gives it: "https://example.com",
// "https://example.com/docs", or the full URL of an index under either
// location. The result has no trailing slash, query or fragment. An
// origin that is not an http(s) URL with a host is an error wrapping
// ErrInvalidIndex; one with credentials in it, ErrInsecure.
func ParseOrigin(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%w: %q is not an https:// origin (like https://example.com or https://example.com/docs)", ErrInvalidIndex, s)
	}
	if u.User != nil {
		return nil, fmt.Errorf("%w: %q carries credentials; give the origin without them", ErrInsecure, u.Redacted())
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	p := strings.TrimRight(u.Path, "/")
	for _, ix := range []string{IndexPath, LegacyIndexPath} {
		if rest, ok := strings.CutSuffix(p, ix); ok {
			p = rest
			break
		}
	}
	u.Path, u.RawPath = p, ""
	return u, nil
}
