package registry

import (
	"testing"
)

func TestParseReference(t *testing.T) {
	const d = "sha256:0f2e30e7b7400e8fed802f1b90e2e8d3b654eee881f6e90325feabe6866c57ab"
	tests := []struct {
		in   string
		want Reference
		str  string
	}{
		{"ghcr.io/acme/skills/pdf", Reference{Registry: "ghcr.io", Repository: "acme/skills/pdf"}, ""},
		{"ghcr.io/acme/skills/pdf:1.2.0", Reference{Registry: "ghcr.io", Repository: "acme/skills/pdf", Tag: "1.2.0"}, ""},
		{"ghcr.io/acme/skills/pdf:1.2.0+build.5", Reference{Registry: "ghcr.io", Repository: "acme/skills/pdf", Tag: "1.2.0_build.5"}, "ghcr.io/acme/skills/pdf:1.2.0_build.5"},
		{"127.0.0.1:5000/pdf@" + d, Reference{Registry: "127.0.0.1:5000", Repository: "pdf", Digest: d}, ""},
		{"127.0.0.1:5000/pdf:1.0.0@" + d, Reference{Registry: "127.0.0.1:5000", Repository: "pdf", Tag: "1.0.0", Digest: d}, ""},
		{"localhost:5000/org/pdf@^1.2", Reference{Registry: "localhost:5000", Repository: "org/pdf", Range: "^1.2"}, ""},
		{"localhost:5000/org/pdf@>=1.0 <2", Reference{Registry: "localhost:5000", Repository: "org/pdf", Range: ">=1.0 <2"}, ""},
		{"GHCR.IO/acme/skills/pdf", Reference{Registry: "ghcr.io", Repository: "acme/skills/pdf"}, "ghcr.io/acme/skills/pdf"},
		{"ghcr.io:443/acme/skills/pdf:1.0.0", Reference{Registry: "ghcr.io", Repository: "acme/skills/pdf", Tag: "1.0.0"}, "ghcr.io/acme/skills/pdf:1.0.0"},
		{"Ghcr.Io:443/acme/skills/pdf@^1", Reference{Registry: "ghcr.io", Repository: "acme/skills/pdf", Range: "^1"}, "ghcr.io/acme/skills/pdf@^1"},
		{"LocalHost:4430/pdf", Reference{Registry: "localhost:4430", Repository: "pdf"}, "localhost:4430/pdf"},
		{"oci:./registry/pdf", Reference{Layout: "registry/pdf"}, "oci:registry/pdf"},
		{"oci:/tmp/x:1.0.0", Reference{Layout: "/tmp/x", Tag: "1.0.0"}, ""},
		{"oci:layout@" + d, Reference{Layout: "layout", Digest: d}, ""},
		{"oci:layout@~1.2", Reference{Layout: "layout", Range: "~1.2"}, ""},
	}
	for _, tt := range tests {
		got, err := ParseReference(tt.in)
		if err != nil {
			t.Errorf("ParseReference(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseReference(%q) = %+v; want %+v", tt.in, got, tt.want)
		}
		str := tt.str
		if str == "" {
			str = tt.in
		}
		if got.String() != str {
			t.Errorf("ParseReference(%q).String() = %q; want %q", tt.in, got.String(), str)
		}
	}
}

func TestParseReferenceErrors(t *testing.T) {
	for _, in := range []string{
		"",
		"pdf",
		"ghcr.io/",
		"ghcr.io/Acme/PDF",
		"ghcr.io/acme/pdf@sha256:nothex",
		"ghcr.io/acme/pdf@not a range!!",
		"ghcr.io/acme/pdf:bad tag",
		"oci:",
		"ghcr.io:/acme/pdf", // dials ghcr.io: one registry under two names
	} {
		if got, err := ParseReference(in); err == nil {
			t.Errorf("ParseReference(%q) = %+v; want an error", in, got)
		}
	}
}

func TestPlainHTTPHostsMatchCanonically(t *testing.T) {
	c := NewClient(Options{PlainHTTPHosts: []string{"LocalHost:5000", "Registry.Internal:443"}})
	for host, want := range map[string]bool{"localhost:5000": true, "registry.internal": true, "localhost:5001": false} {
		if got := c.plainHTTP(host); got != want {
			t.Errorf("plainHTTP(%q) = %v; want %v", host, got, want)
		}
	}
}

// A reference's registry is stored canonically, so it compares equal to
// a canonical prefix however it was written.
func TestParseReferenceCanonicalHost(t *testing.T) {
	for _, in := range []string{"index.docker.io/acme/pdf", "registry-1.docker.io/acme/pdf", "Docker.io:443/acme/pdf", "docker.io:0443/acme/pdf"} {
		r, err := ParseReference(in)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := r.Repo(), "docker.io/acme/pdf"; got != want {
			t.Errorf("ParseReference(%q).Repo() = %q; want %q", in, got, want)
		}
	}
}
