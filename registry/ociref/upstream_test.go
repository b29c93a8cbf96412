package ociref

import (
	_ "crypto/sha256" // go-digest knows sha256, sha384 and sha512 only
	_ "crypto/sha512" // when linked, as they are in skillpm
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	orasregistry "oras.land/oras-go/v2/registry"
)

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestSyntaxMatchesUpstream pins that the checks Parse makes without
// linking oras-go and go-digest are theirs: same verdicts, same texts.
func TestSyntaxMatchesUpstream(t *testing.T) {
	hex := strings.Repeat("0f", 32)
	digests := []string{
		"sha256:" + hex, "sha256:" + strings.ToUpper(hex), "sha256:" + hex[:10], "sha256:" + hex + "00",
		"sha384:" + strings.Repeat("a", 96), "sha384:" + strings.Repeat("a", 64),
		"sha512:" + strings.Repeat("b", 128), "sha512:" + strings.Repeat("g", 128),
		"md5:" + strings.Repeat("c", 32), "blake3:abc", "Sha256:" + hex, "sha256+b64:abc=",
		"sha256:", ":abc", "nocolon", "sha256:" + hex + "/x", "sha256:nothex", "a..b:c",
		digest.FromString("skill").String(),
	}
	for _, d := range digests {
		_, want := digest.Parse(d)
		if got := validDigest(d); errText(got) != errText(want) {
			t.Errorf("validDigest(%q) = %v; go-digest says %v", d, got, want)
		}
	}
	repos := []struct{ host, repo string }{
		{"ghcr.io", "acme/skills/pdf"}, {"ghcr.io", "Acme/pdf"}, {"ghcr.io", "a__b/c--d/e.f"},
		{"ghcr.io", "a___b"}, {"ghcr.io", "a/"}, {"ghcr.io", "/a"}, {"ghcr.io", "a//b"},
		{"ghcr.io", "-a"}, {"ghcr.io", "a-"}, {"ghcr.io", "x"}, {"ghcr.io", "a b"},
		{"localhost:5000", "pdf"}, {"[::1]:5000", "pdf"}, {"[fe80::1]", "pdf"},
		{"bad host", "pdf"}, {"host?x", "pdf"}, {"host#x", "pdf"}, {"user@host", "pdf"},
		{"host%20", "pdf"}, {"127.0.0.1:5000", "pdf"}, {"host:port", "pdf"},
	}
	for _, r := range repos {
		want := orasregistry.Reference{Registry: r.host, Repository: r.repo}.Validate()
		if got := validRepo(r.host, r.repo); errText(got) != errText(want) {
			t.Errorf("validRepo(%q, %q) = %v; oras-go says %v", r.host, r.repo, got, want)
		}
	}
	tags := []string{"1.0.0", "1.0.0_build.5", "latest", "_x", ".x", "-x", "a b", "v1-rc.1",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "é", "a+b"}
	for _, tag := range tags {
		want := orasregistry.Reference{Registry: "x", Repository: "x", Reference: tag}.ValidateReferenceAsTag() == nil
		if got := tagRE().MatchString(tag); got != want {
			t.Errorf("tag %q valid = %v; oras-go says %v", tag, got, want)
		}
	}
}
