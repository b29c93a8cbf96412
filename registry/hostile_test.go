package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// answer is a hostile registry's handler for the requests match picks.
func answer(match func(r *http.Request) bool, fn func(w http.ResponseWriter, r *http.Request)) func(w http.ResponseWriter, r *http.Request) bool {
	return func(w http.ResponseWriter, r *http.Request) bool {
		if !match(r) {
			return false
		}
		fn(w, r)
		return true
	}
}

// TestHostileAnswersClassified: answers a registry should never give
// (statuses the API does not use there, size and digest headers that
// contradict the descriptor, listings that are not JSON or are over the
// limit) fail with the sentinel the CLI maps to its documented exit code:
// ErrIntegrity (10) for contradicted sizes and digests, ErrNetwork (5)
// for a registry failing. Before, each was an unclassified error: exit 1,
// "a bug", and no hint.
func TestHostileAnswersClassified(t *testing.T) {
	f := newFixture(t, Options{Limits: Limits{MaxManifestSize: 64 << 10}})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	res, err := f.client.Resolve(bg, pub.Ref)
	if err != nil {
		t.Fatal(err)
	}
	layer := res.Layout.Layers[0]
	isLayer := func(r *http.Request) bool {
		return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/blobs/"+layer.Digest.String())
	}
	isManifest := func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/manifests/") }
	isTags := func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/tags/list") }
	isReferrers := func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/referrers/") }
	status := func(code int) func(w http.ResponseWriter, r *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
	}
	tests := []struct {
		name string
		op   string // pull by tag, pull by digest, versions, inspect
		hook func(w http.ResponseWriter, r *http.Request) bool
		want error
	}{
		{"manifest with a malformed digest header", "tag", answer(isManifest, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Docker-Content-Digest", "garbage")
			w.Header().Set("Content-Type", res.Layout.Manifest.MediaType)
			w.Write(res.ManifestJSON)
		}), ErrIntegrity},
		{"manifest answered 400", "tag", answer(isManifest, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"errors":[{"code":"X","message":"no"}]}`))
		}), ErrNetwork},
		{"manifest answered 418", "tag", answer(isManifest, status(http.StatusTeapot)), ErrNetwork},
		{"token service issuing an empty token", "tag", answer(func(r *http.Request) bool { return isManifest(r) || r.URL.Path == "/token" }, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/token" {
				w.Write([]byte(`{"token":""}`))
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="http://`+r.Host+`/token",service="registry"`)
			w.WriteHeader(http.StatusUnauthorized)
		}), ErrUnauthorized},
		{"token answer over 128 KiB", "tag", answer(func(r *http.Request) bool { return isManifest(r) || r.URL.Path == "/token" }, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/token" {
				w.Write([]byte(`{"token":"` + strings.Repeat("a", 200<<10) + `"}`))
				return
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="http://`+r.Host+`/token",service="registry"`)
			w.WriteHeader(http.StatusUnauthorized)
		}), ErrNetwork},
		{"layer whose Content-Length is not its size", "digest", answer(isLayer, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", itoa(int(layer.Size)+5))
			w.WriteHeader(http.StatusOK)
		}), ErrIntegrity},
		{"layer whose digest header names another blob", "digest", answer(isLayer, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Docker-Content-Digest", res.Layout.Config.Digest.String())
			w.WriteHeader(http.StatusOK)
		}), ErrIntegrity},
		{"layer answered 206 to a plain GET", "digest", answer(isLayer, status(http.StatusPartialContent)), ErrNetwork},
		{"layer answered 302 without a Location", "digest", answer(isLayer, status(http.StatusFound)), ErrNetwork},
		{"tag list that is not JSON", "versions", answer(isTags, func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"tags": 5`))
		}), ErrNetwork},
		{"tag list over max_manifest_size", "versions", answer(isTags, func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"name":"x","tags":["` + strings.Repeat("a", 128<<10) + `"]}`))
		}), ErrNetwork},
		{"tag list answered 400", "versions", answer(isTags, status(http.StatusBadRequest)), ErrNetwork},
		{"tag list linking to another host", "versions", answer(isTags, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `<http://169.254.169.254/v2/org/skills/pdf/tags/list?n=1>; rel="next"`)
			w.Write([]byte(`{"name":"org/skills/pdf","tags":["1.0.0"]}`))
		}), ErrNetwork},
		{"tag list with a malformed Link", "versions", answer(isTags, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `/v2/next; rel="next"`)
			w.Write([]byte(`{"name":"org/skills/pdf","tags":["1.0.0"]}`))
		}), ErrNetwork},
		{"referrers tag index that is not JSON", "inspect", answer(func(r *http.Request) bool {
			return isReferrers(r) || strings.HasSuffix(r.URL.Path, "/manifests/sha256-"+res.Ref.Digest.Encoded())
		}, func(w http.ResponseWriter, r *http.Request) {
			if isReferrers(r) { // no referrers API: oras-go reads the tag schema
				w.WriteHeader(http.StatusNotFound)
				return
			}
			w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
			w.Write([]byte(`{"manifests": 5`))
		}), ErrNetwork},
		{"referrers that are not JSON", "inspect", answer(isReferrers, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
			w.Write([]byte(`{"manifests": 5`))
		}), ErrNetwork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.cache.Delete(layer.Digest); err != nil {
				t.Fatal(err)
			}
			f.srv.Hook(tt.hook)
			defer f.srv.Hook(nil)
			ctx, cancel := context.WithTimeout(bg, 20*time.Second)
			defer cancel()
			var err error
			switch tt.op {
			case "tag":
				_, err = f.client.Pull(ctx, pub.Ref.WithDigest("").WithTag("1.0.0"), filepath.Join(t.TempDir(), "out"), PullOptions{})
			case "digest":
				_, err = f.client.Pull(ctx, pub.Ref, filepath.Join(t.TempDir(), "out"), PullOptions{})
			case "versions":
				_, err = f.client.Versions(ctx, pub.Ref)
			case "inspect":
				_, err = f.client.Inspect(ctx, pub.Ref)
			}
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), f.srv.Host) {
				t.Fatalf("got %v; want an error wrapping %q naming %s", err, tt.want, f.srv.Host)
			}
		})
	}
}

// TestMalformedDigestsRefused: a manifest naming a layer, or a referrers
// listing naming a manifest, by a "digest" that is not one (here with a
// terminal escape sequence in it) is refused with ErrIntegrity before
// anything is read. Before, Resolve and Inspect returned it, and
// 'skillpm inspect' printed the escape sequence to the terminal.
func TestMalformedDigestsRefused(t *testing.T) {
	f := newFixture(t, Options{})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	res, err := f.client.Resolve(bg, pub.Ref)
	if err != nil {
		t.Fatal(err)
	}
	const bad = "sha256:\x1b]0;pwned\x07"
	manifest := strings.Replace(string(res.ManifestJSON), res.Layout.Layers[0].Digest.String(), `sha256:\u001b]0;pwned\u0007`, 1)
	referrers := `{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[` +
		`{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:\u001b]0;pwned\u0007","size":5}]}`
	tests := []struct {
		name string
		hook func(w http.ResponseWriter, r *http.Request) bool
	}{
		{"layer digest", answer(func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, "/manifests/1.0.0") }, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", res.Layout.Manifest.MediaType)
			w.Write([]byte(manifest))
		})},
		{"referrer digest", answer(func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/referrers/") }, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/vnd.oci.image.index.v1+json")
			w.Write([]byte(referrers))
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.srv.Hook(tt.hook)
			defer f.srv.Hook(nil)
			in, err := f.client.Inspect(bg, pub.Ref.WithDigest("").WithTag("1.0.0"))
			if !errors.Is(err, ErrIntegrity) {
				t.Fatalf("Inspect: %+v, %v; want ErrIntegrity", in, err)
			}
			if strings.Contains(err.Error(), bad) {
				t.Errorf("the error quotes the escape sequence as is: %q", err)
			}
		})
	}
}

// TestRegistryErrorMessagesOneLine: the message a registry puts in an
// error answer is quoted in one line, its newlines written as \n, so it
// cannot start a line of its own under skillpm's "error:" (a fake
// "error:" line or CI workflow command). Before, it was quoted as sent.
func TestRegistryErrorMessagesOneLine(t *testing.T) {
	f := newFixture(t, Options{})
	pub := f.publish(t, "pdf", "1.0.0", nil)
	f.srv.Hook(answer(func(r *http.Request) bool { return strings.Contains(r.URL.Path, "/manifests/") }, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		w.Write([]byte(`{"errors":[{"code":"DENIED","message":"nope\nerror: all skills removed\r\n::error::x"}]}`))
	}))
	defer f.srv.Hook(nil)
	_, err := f.client.Resolve(bg, pub.Ref.WithDigest("").WithTag("1.0.0"))
	if !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("Resolve: %v; want ErrUnauthorized", err)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.Contains(msg, `nope\nerror: all skills removed\r\n::error::x`) {
		t.Errorf("message %q; want the registry's words on one line, newlines as \\n", msg)
	}
}

// TestHostileUploadAnswersClassified: a registry answering a blob
// upload with a Location on another host (oras-go refuses to send the
// upload and its credentials there) fails the publish with ErrInsecure
// (exit 9), as a redirect there does; one without a Location, with
// ErrNetwork. Before, both were unclassified: exit 1.
func TestHostileUploadAnswersClassified(t *testing.T) {
	f := newFixture(t, Options{})
	dir := writeSkill(t, t.TempDir(), "pdf", "1.0.0", nil)
	p, err := Pack(bg, dir, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	isUpload := func(r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/blobs/uploads/")
	}
	tests := []struct {
		name     string
		location string
		want     error
	}{
		{"Location on another host", "http://169.254.169.254/upload", ErrInsecure},
		{"no Location", "", ErrNetwork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.srv.Hook(answer(isUpload, func(w http.ResponseWriter, r *http.Request) {
				if tt.location != "" {
					w.Header().Set("Location", tt.location)
				}
				w.WriteHeader(http.StatusAccepted)
			}))
			defer f.srv.Hook(nil)
			_, err := f.client.Publish(bg, p, f.ref(t, "org/skills/pdf"), PublishOptions{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("Publish: %v; want an error wrapping %q", err, tt.want)
			}
		})
	}
}

// TestVersionOnlySemver: the version a resolved artifact states comes
// from its config, its annotations or its tag, and only a strict semver
// one counts: 'skillpm add REF@DIGEST' writes it into skills.yaml as the
// constraint, so a config saying "*" or ">=0.0.0" would turn a pin into
// a range the registry picks from (and a control character would reach
// the terminal). Before, the config's and the annotation's were taken
// as written.
func TestVersionOnlySemver(t *testing.T) {
	tests := []struct {
		config, annotation, tag, want string
	}{
		{"1.2.0", "9.9.9", "3.0.0", "1.2.0"},
		{"*", "", "1.0.0", "1.0.0"},
		{">=0.0.0", "2.0.0", "1.0.0", "2.0.0"},
		{"", "1.0.0\x1b[2J", "1.0.1", "1.0.1"},
		{"v1.2", "latest", "latest", ""},
	}
	for _, tt := range tests {
		res := &Resolved{Config: &Config{Version: tt.config}, Layout: Layout{Annotations: map[string]string{ocispec.AnnotationVersion: tt.annotation}}}
		res.Ref.Tag = tt.tag
		if got := res.Version(); got != tt.want {
			t.Errorf("config %q, annotation %q, tag %q: Version() = %q; want %q", tt.config, tt.annotation, tt.tag, got, tt.want)
		}
	}
}
