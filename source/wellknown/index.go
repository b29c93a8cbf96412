package wellknown

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/internal/lazyre"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/source/wellknown/discovery"
)

// rawIndex is the index as served, before any check.
type rawIndex struct {
	Schema string     `json:"$schema"`
	Skills []rawEntry `json:"skills"`
}

type rawEntry struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Description string          `json:"description"`
	URL         string          `json:"url"`
	Digest      string          `json:"digest"`
	Version     string          `json:"version"`
	Files       json.RawMessage `json:"files"` // v0.1 only
}

var digestRE = lazyre.New(`^sha256:[0-9a-f]{64}$`)

// maxDescription bounds an entry's description, as the spec does.
const maxDescription = 1024

// Index reads the discovery index of origin (see discovery.ParseOrigin): the
// current location first, then the legacy one when the first answers
// 404. Every entry is checked and its URL resolved against the index.
func (c *Client) Index(ctx context.Context, origin string) (*Index, error) {
	base, err := discovery.ParseOrigin(origin)
	if err != nil {
		return nil, err
	}
	if err := c.allowedScheme(base); err != nil {
		return nil, err
	}
	var tried []string
	for _, p := range []string{discovery.IndexPath, discovery.LegacyIndexPath} {
		u := *base
		u.Path = base.Path + p
		data, final, err := c.get(ctx, u.String(), c.Limits.WithDefaults().MaxManifestSize, "index")
		if errors.Is(err, ErrNotFound) {
			tried = append(tried, u.String())
			continue
		}
		if err != nil {
			return nil, err
		}
		idx, err := c.parseIndex(data, base, final)
		if err != nil {
			return nil, err
		}
		idx.Legacy = p == discovery.LegacyIndexPath
		return idx, nil
	}
	return nil, fmt.Errorf("%s: %w: no discovery index at %s; check the origin, or ask its publisher to serve %s",
		base.Redacted(), ErrNotFound, strings.Join(tried, " or "), discovery.IndexPath)
}

// parseIndex checks a served index; named is the origin as the user (or
// skills.yaml) wrote it, at the URL the index came from after redirects,
// the base of relative entry URLs. Entries must be on the named origin
// (or one allowed explicitly), not merely on the one a redirect led to:
// trust policies and the lock name the origin as written.
func (c *Client) parseIndex(data []byte, named, at *url.URL) (*Index, error) {
	where := at.Redacted()
	invalid := func(format string, args ...any) error {
		return fmt.Errorf("%s: %w: %s", where, ErrInvalidIndex, fmt.Sprintf(format, args...))
	}
	var raw rawIndex
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, invalid("not a JSON discovery index (%v); the origin must serve {\"$schema\": %q, \"skills\": [...]}", err, SchemaURI)
	}
	if raw.Schema != "" && raw.Schema != SchemaURI {
		return nil, invalid("unsupported $schema %q; skillpm reads %s", raw.Schema, SchemaURI)
	}
	max := min(MaxEntries, c.Limits.WithDefaults().MaxListItems)
	if len(raw.Skills) > max {
		return nil, invalid("%d entries, over the limit of %d", len(raw.Skills), max)
	}
	idx := &Index{URL: where, Schema: raw.Schema, Skills: []Entry{}}
	seen := map[string]bool{}
	for i, r := range raw.Skills {
		if !skill.ValidName(r.Name) {
			return nil, invalid("entry %d: %q is not a valid skill name (1-64 lowercase letters, digits and inner hyphens)", i, trunc(r.Name))
		}
		if seen[r.Name] {
			return nil, invalid("skill %q is listed twice", r.Name)
		}
		seen[r.Name] = true
		if r.Digest == "" {
			hint := ""
			if len(r.Files) > 0 || raw.Schema == "" {
				hint = " (a legacy v0.1 index, which lists files without digests)"
			}
			return nil, fmt.Errorf("%s: skill %q: %w%s; skillpm installs only what it can pin: ask the publisher to serve the %s index with a sha256 digest per skill",
				where, r.Name, ErrNoDigest, hint, SchemaURI)
		}
		if !digestRE().MatchString(r.Digest) {
			return nil, invalid("skill %q: digest %q is not sha256: and 64 lowercase hex digits", r.Name, trunc(r.Digest))
		}
		switch r.Type {
		case TypeSkillMD, TypeArchive:
		default:
			idx.Skipped = append(idx.Skipped, r.Name)
			continue
		}
		if r.URL == "" {
			return nil, invalid("skill %q has no url", r.Name)
		}
		ref, err := url.Parse(r.URL)
		if err != nil {
			return nil, invalid("skill %q: url %q: %v", r.Name, trunc(r.URL), err)
		}
		abs := at.ResolveReference(ref)
		abs.Fragment, abs.RawFragment = "", ""
		if abs.User != nil {
			return nil, fmt.Errorf("%s: skill %q: %w: its url carries credentials", where, r.Name, ErrInsecure)
		}
		if err := c.allowedScheme(abs); err != nil {
			return nil, fmt.Errorf("%s: skill %q: %w", where, r.Name, err)
		}
		if !c.sameOrigin(named, abs) {
			if originOf(at) != originOf(named) && originOf(abs) == originOf(at) {
				return nil, fmt.Errorf("%s: skill %q: %w: %s redirected the index to %s, another origin; name that origin instead (wellknown: %s)",
					where, r.Name, ErrInsecure, originOf(named), originOf(at), originOf(at))
			}
			return nil, fmt.Errorf("%s: skill %q: %w: its url %s is on another origin than the index; if it is the publisher's CDN, allow it with allow_origins: [%s] in the user config",
				where, r.Name, ErrInsecure, abs.Redacted(), originOf(abs))
		}
		if len(r.Description) > maxDescription {
			return nil, invalid("skill %q: description is %d bytes, over %d", r.Name, len(r.Description), maxDescription)
		}
		idx.Skills = append(idx.Skills, Entry{
			Name: r.Name, Type: r.Type, Description: r.Description,
			URL: abs.String(), Digest: r.Digest, Version: r.Version,
		})
	}
	sort.Slice(idx.Skills, func(i, j int) bool { return idx.Skills[i].Name < idx.Skills[j].Name })
	return idx, nil
}

func trunc(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// get reads u whole, at most max bytes; what names it in errors. It
// returns the final URL after redirects.
func (c *Client) get(ctx context.Context, u string, max int64, what string) ([]byte, *url.URL, error) {
	resp, err := c.do(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(httpbound.LimitReader(resp.Body, max))
	if err != nil {
		var tl *httpbound.TooLongError
		if errors.As(err, &tl) {
			return nil, nil, fmt.Errorf("%s: %w: %s is over the %d byte limit (limits.max_manifest_size)", redact(u), ErrInvalidIndex, what, max)
		}
		return nil, nil, fmt.Errorf("read %s %s: %w: %v", what, redact(u), ErrNetwork, err)
	}
	return data, resp.Request.URL, nil
}

// do sends a GET and returns a 200 response; 404 and 410 are ErrNotFound.
func (c *Client) do(ctx context.Context, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidIndex, redact(u), err)
	}
	ua := c.UserAgent
	if ua == "" {
		ua = "skillpm"
	}
	req.Header.Set("User-Agent", ua)
	resp, err := c.client().Do(req)
	if err != nil {
		if errors.Is(err, ErrInsecure) {
			return nil, fmt.Errorf("GET %s: redirect refused: %w", redact(u), err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("GET %s: %w: %v", redact(u), ErrNetwork, err)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		return resp, nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %w (HTTP %d)", redact(u), ErrNotFound, resp.StatusCode)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests:
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %w: HTTP %d", redact(u), ErrNetwork, resp.StatusCode)
	default:
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: HTTP %d", redact(u), resp.StatusCode)
	}
}

func redact(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Redacted()
	}
	return u
}
