//go:build unix

package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	"github.com/sigstore/sigstore-go/pkg/testing/ca"

	"github.com/skillpm/skillpm/internal/sigstorego"
)

// A project policy may point trustedRoot: at any file, and its skill's
// registry may serve a keyless bundle that makes the helper read it. The
// file must neither be waited on (a FIFO) nor read whole (a device), and
// why it is not a trusted root must not quote it: the reason lands in
// verify's output, in CI logs, and the file may hold a token.
func TestTrustedRootHostileFile(t *testing.T) {
	dir := t.TempDir()
	vs, err := ca.NewVirtualSigstore()
	if err != nil {
		t.Fatal(err)
	}
	d := digest.FromString("manifest")
	bundle := keylessSign(t, vs, identity, issuer, d, time.Minute)

	const secret = "ghp_S3cretT0kenOfTheCIRunner"
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"token":    secret + "\n",
		"env":      "GITHUB_TOKEN=" + secret + "\n",
		"json":     `{"mediaType": "` + secret + `"}`,
		"jsonlist": `{"tlogs": "` + secret + `"}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{"token", "env", "json", "jsonlist", fifo, "/dev/zero"} {
		pol := writePolicy(t, dir, fmt.Sprintf("version: 1\ntrustedRoot: %s\nrules:\n  - prefix: \"*\"\n    identities:\n      - issuer: %s\n        subject: %s\n", root, issuer, identity))
		// A fresh backend: no trusted root loaded yet.
		v, err := NewVerifier(pol, Options{Sigstore: &sigstorego.Local{}})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := v.Verify(context.Background(), repo, d, []Envelope{{Referrer: d, Bundle: bundle}})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "trusted root") {
				t.Errorf("trustedRoot %s: %v; want a denial naming the trusted root, not quoting it", root, err)
			}
		case <-time.After(5 * time.Second):
			if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
				f.Close()
			}
			t.Fatalf("trustedRoot %s: still reading it after 5s", root)
		}
	}

	// A real trusted root (the public-good one, from sigstore-go's
	// examples) is read; the virtual sigstore's certificate does not
	// chain to it.
	good, err := filepath.Abs("testdata/trusted_root.json")
	if err != nil {
		t.Fatal(err)
	}
	pol := writePolicy(t, dir, fmt.Sprintf("version: 1\ntrustedRoot: %s\nrules:\n  - prefix: \"*\"\n    identities:\n      - issuer: %s\n        subject: %s\n", good, issuer, identity))
	v, err := NewVerifier(pol, Options{Sigstore: &sigstorego.Local{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = v.Verify(context.Background(), repo, d, []Envelope{{Referrer: d, Bundle: bundle}})
	if err == nil || strings.Contains(err.Error(), "trusted root") {
		t.Errorf("public-good trusted root: %v; want it read, and the certificate refused", err)
	}
}
