package verify

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/registry"
)

// Why a bundle was rejected may quote the bundle ("unsupported media
// type: ..."), which whoever serves it wrote. Each reason is one line of
// bounded length: a newline in it would start a line of the attacker's
// in verify's output (a GitHub Actions workflow command such as
// "::add-mask::" or "::stop-commands::"), and a MiB of it would flood
// the log.
func TestRejectionReasonsOneLine(t *testing.T) {
	dir := t.TempDir()
	testKey(t, dir, "good")
	pol := writePolicy(t, dir, "version: 1\nrules:\n  - prefix: \"*\"\n    keys: [good.pub]\n")
	v, err := NewVerifier(pol, Options{Sigstore: local})
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("manifest")
	envs := []Envelope{
		{Referrer: d, Bundle: []byte(`{"mediaType":"x\n::stop-commands::pwned\r\u2028\u001b[2J"}`)},
		{Referrer: d, Bundle: []byte(`{"mediaType":"` + strings.Repeat("A", 900<<10) + `"}`)},
		{Referrer: d, Err: errors.New("registry says:\n::error::forged")},
	}
	res, err := v.Verify(context.Background(), repo, d, envs)
	if !errors.Is(err, ErrPolicy) {
		t.Fatalf("Verify: %v; want a policy denial", err)
	}
	if got, want := len(res.Rejected), len(envs); got != want {
		t.Fatalf("rejected = %d reasons; want %d", got, want)
	}
	for _, s := range append(res.Rejected, err.Error()) {
		if strings.ContainsAny(s, "\n\r\u2028\x1b") {
			t.Errorf("reason %.80q has a line break or escape in it", s)
		}
	}
	for _, s := range res.Rejected {
		if len(s) > 2*maxReason {
			t.Errorf("reason of %d bytes; want at most about %d", len(s), maxReason)
		}
	}

	// verify's report of a registry's error is one line too.
	r := &Report{}
	r.failFetch(errors.New("GET /v2/: 500: boom\n::error::forged"))
	r.Fail(StatusTampered, "%s", "a\nb")
	for _, p := range r.Problems {
		if strings.ContainsAny(p, "\n\r") {
			t.Errorf("problem %q has a line break in it", p)
		}
	}
}

// A registry the client refused to talk to insecurely (a redirect to
// plain http, credentials over plain HTTP) fails verify as a policy,
// exit 9, as install does: not as an unclassified error.
func TestFailFetchInsecure(t *testing.T) {
	for _, c := range []struct {
		err  error
		want Status
	}{
		{fmt.Errorf("get manifest: %w", registry.ErrInsecure), StatusPolicy},
		{fmt.Errorf("get manifest: %w", registry.ErrNetwork), StatusNetwork},
		{fmt.Errorf("get manifest: %w", registry.ErrIntegrity), StatusTampered},
	} {
		r := &Report{Manifest: "sha256:x"}
		r.failFetch(c.err)
		if r.Status != c.want {
			t.Errorf("failFetch(%v): status %s; want %s", c.err, r.Status, c.want)
		}
	}
}
