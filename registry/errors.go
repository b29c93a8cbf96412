package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote/auth"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/internal/lazyre"
)

// Sentinel errors. Errors returned by this package wrap at most one of
// them, so callers (the CLI's exit codes) can test with errors.Is.
var (
	// ErrNotFound: the repository, tag, version or blob does not exist.
	ErrNotFound = errors.New("not found")
	// ErrUnauthorized: the registry refused the credentials (or their
	// absence).
	ErrUnauthorized = errors.New("unauthorized")
	// ErrNetwork: the registry could not be reached or failed (5xx,
	// reset, timeout) after retries.
	ErrNetwork = errors.New("registry unreachable")
	// ErrIntegrity: content did not match its digest or size, or is
	// larger than the limits allow.
	ErrIntegrity = errors.New("integrity check failed")
	// ErrUnsafeArchive: a content layer tried to write outside its
	// target or broke an unpacking limit. Errors wrapping it are
	// *UnsafeArchiveError.
	ErrUnsafeArchive = errors.New("unsafe archive")
	// ErrNotSkill: the artifact holds no skill skillpm can read (unknown
	// media types, no SKILL.md).
	ErrNotSkill = errors.New("not a skill artifact")
	// ErrTagExists: publishing would move an existing version tag to
	// different content.
	ErrTagExists = errors.New("version already published with different content")
	// ErrExists: the output folder of a pull exists and is not empty.
	ErrExists = errors.New("output exists")
	// ErrInsecure: a connection was refused because it would have
	// carried credentials or content somewhere unsafe: credentials over
	// plain HTTP to a host that is not this machine and that plain_http
	// does not name; a redirect, token realm or upload location leading
	// from https to http, to this machine, or to an internal address.
	ErrInsecure = errors.New("insecure connection refused")
)

// UnsafeArchiveError names the archive entry that was refused and why.
type UnsafeArchiveError struct {
	Entry  string // the entry name as written in the archive; may be empty for whole-archive limits
	Reason string // what is wrong with it
}

func (e *UnsafeArchiveError) Error() string {
	if e.Entry == "" {
		return "unsafe archive: " + e.Reason
	}
	return fmt.Sprintf("unsafe archive entry %q: %s", e.Entry, e.Reason)
}

// Is makes errors.Is(err, ErrUnsafeArchive) true.
func (e *UnsafeArchiveError) Is(target error) bool { return target == ErrUnsafeArchive }

func unsafeEntry(name, format string, args ...any) error {
	return &UnsafeArchiveError{Entry: name, Reason: fmt.Sprintf(format, args...)}
}

// kindError marks err as one of the sentinels without changing its
// message.
type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string        { return e.err.Error() }
func (e *kindError) Unwrap() error        { return e.err }
func (e *kindError) Is(target error) bool { return target == e.kind }

// answerError is an error answer of a registry (or of its token
// service), quoted on one line and without credentials: the message in
// it is the registry's, and a newline in it would start a line of its
// own under the CLI's "error:" (a fake error, a CI workflow command),
// and an Authorization header value or a token it echoes would be kept
// by every CI log that prints it. Terminal controls are the CLI's to
// escape.
type answerError struct{ err error }

var (
	oneLine = strings.NewReplacer("\r", `\r`, "\n", `\n`)
	// authValue is an Authorization scheme and its credentials; jwt a
	// JSON web token (registry tokens mostly are).
	authValue = lazyre.New(`(?i)\b(basic|bearer)(\s+)[A-Za-z0-9._~+/=-]{8,}`)
	jwt       = lazyre.New(`\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*`)
)

func (e answerError) Error() string {
	msg := oneLine.Replace(e.err.Error())
	msg = jwt().ReplaceAllString(msg, "[redacted]")
	return authValue().ReplaceAllString(msg, "$1$2[redacted]")
}

func (e answerError) Unwrap() error { return e.err }

// redactedError is err with secret written as [redacted] in its message.
type redactedError struct {
	err    error
	secret string
}

func (e redactedError) Error() string {
	return strings.ReplaceAll(e.err.Error(), e.secret, "[redacted]")
}

func (e redactedError) Unwrap() error { return e.err }

// redact writes secret as [redacted] in err's message, when it is long
// enough not to be an ordinary word of it.
func redact(err error, secret string) error {
	if err == nil || len(secret) < 4 {
		return err
	}
	return redactedError{err, secret}
}

// answerFaults are the words oras-go uses, in errors that wrap nothing
// this package could test, for registry answers it refused: a size or
// digest header that contradicts the descriptor is tampering
// (ErrIntegrity); an answer it cannot read, the registry failing
// (ErrNetwork); one that would send skillpm or its credentials
// elsewhere, ErrInsecure. The tests of hostile answers hold them to
// oras-go's messages, so an upgrade that rewords one fails them.
var answerFaults = []struct {
	text, note string
	kind       error
}{
	{"mismatch Content-Length", "", ErrIntegrity},
	{"invalid response header", "", ErrIntegrity},                  // a malformed Docker-Content-Digest
	{"digest mismatch in Docker-Content-Digest", "", ErrIntegrity}, // a blob's header names another digest
	{"mismatch response Content-Type", "", ErrIntegrity},           // a manifest served as another type than its descriptor's
	// The sha256-<hex> tag index of a registry without the referrers
	// API.
	{"failed to decode referrers index", "the answer is not JSON", ErrNetwork},
	// A tag list, referrers or catalog page, or a token answer (at most
	// 128 KiB, oras-go's limit).
	{"failed to decode response", "the answer is not JSON, or is over its size limit (limits.max_manifest_size for listings)", ErrNetwork},
	// A blob upload sent to another host, or from https to http: the
	// upload and its credentials would follow.
	{"blob upload Location", "", ErrInsecure},
	// A token request (carrying the credentials) sent to plain http
	// from https, to an internal address, or resent elsewhere; a realm
	// that is not a URL is the registry failing.
	{"failed to parse bearer realm", "", ErrNetwork},
	{"bearer realm", "", ErrInsecure},
	{"redirect of token request rejected", "", ErrInsecure},
	{"refusing to resend a token request body", "", ErrInsecure},
	// A token service that issues no token, or a challenge the stored
	// credentials cannot answer (an identity token where Basic is
	// asked): the registry refused, as far as the user can tell.
	{"empty token returned", "", ErrUnauthorized},
	{"missing username or password for", "", ErrUnauthorized},
	// A listing's next page on another origin (refused, so a registry
	// cannot send skillpm to another host), or a Link header that is
	// not one.
	{"invalid next link", "", ErrNetwork},
	{"invalid response Content-Type", "", ErrNetwork},
	{"unknown response Content-Length", "", ErrNetwork},
}

// answerKind marks an oras-go error about a registry's answer with its
// sentinel, and reports false for other errors.
func answerKind(err error) (error, bool) {
	msg := err.Error()
	for _, f := range answerFaults {
		if strings.Contains(msg, f.text) {
			if f.note != "" {
				err = fmt.Errorf("%w (%s)", err, f.note)
			}
			return &kindError{f.kind, err}, true
		}
	}
	return err, false
}

// classify marks errors from oras-go and net/http with this package's
// sentinels so callers need not know about either.
func classify(err error) error {
	if err == nil {
		return nil
	}
	for _, k := range []error{ErrNotFound, ErrUnauthorized, ErrNetwork, ErrIntegrity, ErrUnsafeArchive, ErrNotSkill, ErrTagExists, ErrExists, ErrInsecure} {
		if errors.Is(err, k) {
			return err
		}
	}
	var resp *errcode.ErrorResponse
	if errors.As(err, &resp) {
		err = answerError{err}
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			return &kindError{ErrUnauthorized, err}
		case resp.StatusCode == http.StatusNotFound:
			return &kindError{ErrNotFound, err}
		}
		// 429, 5xx, and any other answer the API does not give here
		// (400, 418, a 206 to a plain GET, a 3xx without a Location):
		// the registry failed, whatever it meant.
		return &kindError{ErrNetwork, err}
	}
	if err, ok := answerKind(err); ok {
		return err
	}
	if errors.Is(err, http.ErrNoLocation) { // an upload answered without one
		return &kindError{ErrNetwork, err}
	}
	if errors.Is(err, auth.ErrBasicCredentialNotFound) {
		return &kindError{ErrUnauthorized, err}
	}
	if errors.Is(err, errdef.ErrNotFound) {
		return &kindError{ErrNotFound, err}
	}
	if errors.Is(err, errdef.ErrSizeExceedsLimit) {
		return &kindError{ErrIntegrity, err}
	}
	var tooLong *httpbound.TooLongError
	if errors.As(err, &tooLong) {
		return &kindError{ErrIntegrity, fmt.Errorf("content is longer than its descriptor says: %w", err)}
	}
	if errors.Is(err, errdef.ErrTooManyPages) {
		return &kindError{ErrNetwork, err}
	}
	var (
		ne net.Error
		ue *url.Error
	)
	if errors.As(err, &ne) {
		// A bare errno is a net.Error too: one from a local file (a full
		// disk under the cache) is this machine's failure, not the
		// registry's.
		if _, errno := ne.(syscall.Errno); errno {
			ne = nil
		}
	}
	if ne != nil || errors.As(err, &ue) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		// A context cancellation surfaces as a *url.Error too; keep it
		// recognisable as such.
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		return &kindError{ErrNetwork, err}
	}
	return err
}
