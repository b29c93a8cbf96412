package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content/oci"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/credentials"
	"oras.land/oras-go/v2/registry/remote/retry"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry/ociref"
)

// Options configure a Client. The zero value reaches registries over
// TLS anonymously, with no cache and default limits.
type Options struct {
	// PlainHTTP speaks plain HTTP to every registry; PlainHTTPHosts to
	// the listed host[:port]s only (loopback registries). TLS otherwise.
	PlainHTTP      bool
	PlainHTTPHosts []string
	// Credentials looks up registry credentials (docker's config and
	// credential helpers: credentials.NewStoreFromDocker). nil means
	// anonymous.
	Credentials credentials.Store
	// Cache holds manifests and blobs by digest. nil means no cache.
	Cache *Cache
	// Concurrency bounds parallel transfers. If less than or equal to 0,
	// a default (currently 8) is used.
	Concurrency int
	// Limits bound what an artifact may cost to read.
	Limits Limits
	// UserAgent is sent with every request; "" means "skillpm".
	UserAgent string
	// Transport is the base HTTP transport, wrapped with the timeouts
	// and retries (429, 5xx and resets, with backoff). nil means
	// httpbound.NewTransport, whose dials are bounded by
	// Timeouts.Connect.
	Transport http.RoundTripper
	// Timeouts bound connecting, waiting for response headers and
	// stalled bodies (httpbound's defaults: 10s, 30s, 30s). A timeout is
	// an ErrNetwork naming the registry, and is not retried.
	Timeouts httpbound.Timeouts
	// Retry decides which requests are retried and after how long. nil
	// means oras-go's default: up to 5 retries of 429, 5xx and network
	// errors, with exponential backoff from 200ms.
	Retry retry.Policy
	// Logf, when set, receives one line per HTTP request (method, URL
	// without query, status, time), possibly from several goroutines at
	// once. Headers and bodies, and so credentials, are never logged.
	Logf func(format string, args ...any)
	// Progress, when set, is told how far each content layer download
	// has got.
	Progress func(Progress)
	// Mirrors redirect reads of upstream prefixes (see ociref.Mirror).
	Mirrors []ociref.Mirror
}

// Progress reports a download.
type Progress struct {
	Digest string
	Done   int64
	Total  int64
	Final  bool // the download has finished (or failed)
}

// Client publishes, pulls and inspects skills in registries and OCI
// layout folders. It is safe for concurrent use.
type Client struct {
	opts   Options
	limits Limits
	auth   *auth.Client

	checkedLayouts *sync.Map // layout folders checkLayout passed; shared by copies
}

// checkLayoutOnce is checkLayout, once per folder for the client's life.
func (c *Client) checkLayoutOnce(dir string) error {
	if c.checkedLayouts != nil {
		if _, ok := c.checkedLayouts.Load(dir); ok {
			return nil
		}
	}
	if err := checkLayout(dir, maxLayoutEntries, c.limits.MaxManifestSize); err != nil {
		return err
	}
	if c.checkedLayouts != nil {
		c.checkedLayouts.Store(dir, true)
	}
	return nil
}

// NewClient returns a Client for opts.
func NewClient(opts Options) *Client {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 8
	}
	if opts.UserAgent == "" {
		opts.UserAgent = "skillpm"
	}
	base := opts.Transport
	if base == nil {
		t := httpbound.NewTransport(opts.Timeouts)
		t.MaxIdleConnsPerHost = opts.Concurrency
		base = t
	}
	c := &Client{opts: opts, limits: opts.Limits.WithDefaults(), checkedLayouts: new(sync.Map)}
	base = httpbound.Wrap(base, opts.Timeouts)
	if opts.Logf != nil {
		base = &logTransport{base: base, logf: opts.Logf}
	}
	ac := &auth.Client{
		Client: &http.Client{Transport: &pageTransport{base: retryTransport(base, opts.Retry)}, CheckRedirect: c.checkRedirect},
		Cache:  auth.NewCache(),
		Header: http.Header{"User-Agent": {opts.UserAgent}},
	}
	c.auth = ac
	if opts.Credentials != nil {
		ac.Credential = c.credential(credentials.Credential(opts.Credentials))
	}
	return c
}

// credential looks credentials up with lookup, but refuses to hand them
// out for plain HTTP to a host that only --plain-http (PlainHTTP) made
// plain, unless it is this machine: that flag is for loopback
// registries, and it also reaches every other registry a command talks
// to (a mirror's upstream), where anyone on the path could answer with
// a 401 and read the password. A host listed under plain_http
// (PlainHTTPHosts) was named by the user, and gets them.
func (c *Client) credential(lookup auth.CredentialFunc) auth.CredentialFunc {
	return func(ctx context.Context, host string) (auth.Credential, error) {
		cred, err := lookup(ctx, host)
		if err != nil || cred == auth.EmptyCredential {
			return cred, err
		}
		if err := c.checkPlainCredentials(host); err != nil {
			return auth.EmptyCredential, err
		}
		return cred, nil
	}
}

// checkPlainCredentials refuses to send host credentials when only
// --plain-http made it plain HTTP and it is not this machine.
func (c *Client) checkPlainCredentials(host string) error {
	if !c.opts.PlainHTTP || c.listedPlainHTTP(host) || isLoopbackHost(host) {
		return nil
	}
	return fmt.Errorf("registry %s: %w: not sending its credentials over plain HTTP (--plain-http is for registries on this machine); list %s under plain_http in config.yaml to allow it, or drop --plain-http", host, ErrInsecure, host)
}

// maxRedirects is how many redirects one request may follow, as
// net/http's default.
const maxRedirects = 10

// checkRedirect keeps a registry's redirects (of blob downloads to a
// CDN, typically) where the registry was: a redirect may not step down
// from https to plain http unless plain_http names the target host, nor
// lead from another host to this machine's loopback, where a local
// service would be asked on the registry's behalf. The rules
// well-known origins follow; oras-go drops the credentials on any
// change of origin.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	from, to := via[0].URL, req.URL
	switch {
	case from.Scheme == "https" && to.Scheme != "https" && !c.listedPlainHTTP(to.Host):
		return fmt.Errorf("%w: %s redirected to %s, which is not https; list %s under plain_http in config.yaml if it is meant", ErrInsecure, from.Host, to.Redacted(), to.Host)
	case !isLoopbackHost(from.Host) && isLoopbackHost(to.Host):
		return fmt.Errorf("%w: %s redirected to %s, on this machine", ErrInsecure, from.Host, to.Redacted())
	}
	return nil
}

// isLoopbackHost reports whether host[:port] is this machine: localhost,
// a loopback address, or an unspecified one (0.0.0.0 and [::] reach
// this machine's services too). Names are not resolved.
func isLoopbackHost(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.Trim(h, "[]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	ip = ip.Unmap() // [::ffff:0.0.0.0] is 0.0.0.0
	return err == nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// Concurrency is the number of parallel transfers the client allows.
func (c *Client) Concurrency() int { return c.opts.Concurrency }

func (c *Client) plainHTTP(host string) bool {
	return c.opts.PlainHTTP || c.listedPlainHTTP(host)
}

// listedPlainHTTP reports whether PlainHTTPHosts names host.
func (c *Client) listedPlainHTTP(host string) bool {
	host = ociref.CanonicalHost(host)
	return slices.ContainsFunc(c.opts.PlainHTTPHosts, func(h string) bool { return ociref.CanonicalHost(h) == host })
}

// target is what the client needs of a repository: a registry's, or an
// OCI layout folder.
type target interface {
	oras.Target
	Tags(ctx context.Context, last string, fn func(tags []string) error) error
}

// open returns the repository ref names. A layout folder that does not
// exist is created only when create is set; otherwise it is not found.
func (c *Client) open(ctx context.Context, ref Reference, create bool) (target, error) {
	if !create {
		if t, ok, err := c.openMirrored(ctx, ref); ok {
			return t, err
		}
	}
	return c.openDirect(ctx, ref, create)
}

// openDirect is open without mirrors.
func (c *Client) openDirect(ctx context.Context, ref Reference, create bool) (target, error) {
	if ref.IsLayout() {
		if !create {
			if _, err := os.Stat(filepath.Join(ref.Layout, "oci-layout")); errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("%s: no OCI image layout there: %w", ref.Repo(), ErrNotFound)
			}
		}
		if err := c.checkLayoutOnce(ref.Layout); err != nil {
			return nil, err
		}
		s, err := oci.NewWithContext(ctx, ref.Layout)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", ref.Repo(), err)
		}
		return s, nil
	}
	repo, err := remote.NewRepository(ref.Registry + "/" + ref.Repository)
	if err != nil {
		return nil, err
	}
	repo.Client = c.auth
	repo.PlainHTTP = c.plainHTTP(ref.Registry)
	repo.MaxMetadataBytes = c.limits.MaxManifestSize
	// The pager (pages.go) names the registry when it stops a listing;
	// oras-go's own caps are the backstop.
	repo.TagListMaxPages = c.limits.MaxPages + 1
	repo.ReferrerListMaxPages = c.limits.MaxPages + 1
	return &boundedRepository{Repository: repo, limits: c.limits}, nil
}

func retryTransport(base http.RoundTripper, p retry.Policy) http.RoundTripper {
	t := retry.NewTransport(base)
	if p == nil {
		p = retry.DefaultPolicy
	}
	t.Policy = func() retry.Policy { return noTimeoutRetry{p} }
	return t
}

// noTimeoutRetry does not retry what httpbound timed out: a registry
// that said nothing for that long is not worth five more waits.
type noTimeoutRetry struct{ retry.Policy }

func (p noTimeoutRetry) Retry(attempt int, resp *http.Response, err error) (time.Duration, error) {
	var te *httpbound.TimeoutError
	if errors.As(err, &te) {
		return -1, nil
	}
	return p.Policy.Retry(attempt, resp, err)
}

// logTransport logs each request without headers or bodies.
type logTransport struct {
	base http.RoundTripper
	logf func(format string, args ...any)
}

func (t *logTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.base.RoundTrip(req)
	u := *req.URL
	u.RawQuery, u.User = "", nil
	if err != nil {
		t.logf("%s %s: %v", req.Method, u.String(), err)
		return resp, err
	}
	// The code and its standard text: the reason phrase is the
	// registry's own free text.
	t.logf("%s %s: %d %s (%s)", req.Method, u.String(), resp.StatusCode, http.StatusText(resp.StatusCode), time.Since(start).Round(time.Millisecond))
	return resp, nil
}

// progressReader reports reads to a Progress callback.
type progressReader struct {
	r     io.Reader
	p     Progress
	fn    func(Progress)
	last  time.Time
	every time.Duration
}

func (c *Client) withProgress(r io.Reader, digest string, total int64) (io.Reader, func()) {
	if c.opts.Progress == nil {
		return r, func() {}
	}
	pr := &progressReader{r: r, p: Progress{Digest: digest, Total: total}, fn: c.opts.Progress, every: 100 * time.Millisecond}
	return pr, func() {
		pr.p.Final = true
		pr.fn(pr.p)
	}
}

func (r *progressReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.p.Done += int64(n)
	if now := time.Now(); now.Sub(r.last) >= r.every {
		r.last = now
		r.fn(r.p)
	}
	return n, err
}
