package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// ListError is a listing (tags, referrers, a catalog) that a registry
// would not let end: a next-page link back to a page already read, or
// more pages or entries than the limits allow. It wraps ErrNetwork: the
// registry is misbehaving, as when it fails.
type ListError struct {
	Registry string // host[:port]
	What     string // "tag list of org/skills/pdf", …
	Reason   string
}

func (e *ListError) Error() string {
	return fmt.Sprintf("registry %s: %s: %s", e.Registry, e.What, e.Reason)
}

// Is makes errors.Is(err, ErrNetwork) true.
func (e *ListError) Is(target error) bool { return target == ErrNetwork }

// pager follows one paged listing: it counts its pages and entries and
// remembers the pages read, so that a Link header pointing back at one
// of them ends the listing instead of looping.
type pager struct {
	registry, what string
	maxPages       int
	maxItems       int

	mu       sync.Mutex
	seen     map[string]bool
	pages, n int
}

type pagerKey struct{}

// newPager starts a listing: requests made with the returned context go
// through the pager (pageTransport finds it there).
func newPager(ctx context.Context, registry, what string, lim Limits) (context.Context, *pager) {
	p := &pager{registry: registry, what: what, maxPages: lim.MaxPages, maxItems: lim.MaxListItems, seen: map[string]bool{}}
	return context.WithValue(ctx, pagerKey{}, p), p
}

func (p *pager) fail(format string, args ...any) error {
	return &ListError{Registry: p.registry, What: p.what, Reason: fmt.Sprintf(format, args...)}
}

// items counts n more entries.
func (p *pager) items(n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n += n
	if p.n > p.maxItems {
		return p.fail("more than %d entries (limits.max_list_items)", p.maxItems)
	}
	return nil
}

// page records a page read from u and checks the link to the next one.
func (p *pager) page(u *url.URL, link string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seen[pageKey(u)] = true
	p.pages++
	if p.pages > p.maxPages {
		return p.fail("more than %d pages (limits.max_pages)", p.maxPages)
	}
	next, ok := nextLink(link)
	if !ok {
		return nil
	}
	nu, err := u.Parse(next)
	if err != nil {
		return nil // oras-go refuses it with its own message
	}
	if p.seen[pageKey(nu)] {
		return p.fail("page %d links back to a page already read (Link: <%s>)", p.pages, next)
	}
	return nil
}

// unwrap returns the pager's own error as it is, without the request
// URL net/http puts around an error from a transport.
func (p *pager) unwrap(err error) error {
	var le *ListError
	if errors.As(err, &le) {
		return le
	}
	return err
}

// pageKey identifies a page: its URL without fragment, the query sorted.
func pageKey(u *url.URL) string {
	k := *u
	k.Fragment, k.RawFragment = "", ""
	k.RawQuery = k.Query().Encode()
	k.Host = strings.ToLower(k.Host)
	return k.String()
}

// nextLink returns the target of a Link header's rel="next" entry.
func nextLink(h string) (string, bool) {
	for part := range strings.SplitSeq(h, ",") {
		part = strings.TrimSpace(part)
		if !strings.HasPrefix(part, "<") {
			continue
		}
		end := strings.IndexByte(part, '>')
		if end < 0 {
			continue
		}
		params := strings.ToLower(part[end+1:])
		if strings.Contains(params, `rel="next"`) || strings.Contains(params, "rel=next") {
			return part[1:end], true
		}
	}
	return "", false
}

// pageTransport applies the pager of a request's context, if any, to
// each page the registry answers.
type pageTransport struct {
	base http.RoundTripper
}

func (t *pageTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	p, _ := req.Context().Value(pagerKey{}).(*pager)
	resp, err := t.base.RoundTrip(req)
	if p == nil || err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	if err := p.page(req.URL, resp.Header.Get("Link")); err != nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		return nil, err
	}
	return resp, nil
}
