package ociref

import "testing"

func TestVersionFromTag(t *testing.T) {
	tests := []struct {
		tag  string
		want string // "" means not a version
	}{
		{"1.2.0", "1.2.0"},
		{"1.2.0_build.5", "1.2.0+build.5"},
		{"2.0.0-rc.1", "2.0.0-rc.1"},
		{"latest", ""},
		{"v1.2.0", ""},
		{"1.2", ""},
		{"sha256-0f2e30e7b7400e8fed802f1b90e2e8d3b654eee881f6e90325feabe6866c57ab.sig", ""},
		{"1.0.0.att", ""},
	}
	for _, tt := range tests {
		v, ok := VersionFromTag(tt.tag)
		got := ""
		if ok {
			got = v.String()
		}
		if got != tt.want {
			t.Errorf("VersionFromTag(%q) = %q; want %q", tt.tag, got, tt.want)
		}
	}
	if got, want := EscapeTag("1.0.0+meta"), "1.0.0_meta"; got != want {
		t.Errorf("EscapeTag = %q; want %q", got, want)
	}
}

func TestCanonicalHost(t *testing.T) {
	for in, want := range map[string]string{
		"ghcr.io":                  "ghcr.io",
		"GHCR.IO":                  "ghcr.io",
		"ghcr.io:443":              "ghcr.io",
		"ghcr.io.":                 "ghcr.io",
		"Ghcr.Io.:443":             "ghcr.io",
		" ghcr.io ":                "ghcr.io",
		"ghcr.io:4430":             "ghcr.io:4430",
		"LocalHost:5000":           "localhost:5000",
		"localhost:80":             "localhost:80", // plain HTTP's port is not HTTPS's default
		"index.docker.io":          "docker.io",
		"registry-1.docker.io:443": "docker.io",
		"Docker.IO":                "docker.io",
		"[::1]:5000":               "[::1]:5000",
		"[FE80::1]":                "[fe80::1]",
		"127.0.0.1:5000":           "127.0.0.1:5000",
		// Spellings the network dials as another: the port is a number.
		"ghcr.io:0443":     "ghcr.io",
		"127.0.0.1:005000": "127.0.0.1:5000",
		"[::1]:0443":       "[::1]",
		// Not a host the network dials: left as it is, not made one.
		"ghcr.io:443:443": "ghcr.io:443:443",
		"ghcr.io:99999":   "ghcr.io:99999",
		"ghcr.io:":        "ghcr.io:", // refused by Parse
		// Source names a policy compares (manager.PolicyName) are not hosts.
		"file:":        "file:",
		"local:skills": "local:skills",
	} {
		if got := CanonicalHost(in); got != want {
			t.Errorf("CanonicalHost(%q) = %q; want %q", in, got, want)
		}
	}
}

// Every spelling of one prefix is one prefix: the rule shared by trust
// policies and mirrors.
func TestCanonicalPrefix(t *testing.T) {
	for _, tc := range []struct {
		want string
		ins  []string
	}{
		{"localhost:5000/skills", []string{"localhost:5000/skills", "Localhost:5000/skills", "LOCALHOST:5000/skills/", "localhost:5000//skills", "http://localhost:5000/skills", " localhost:5000/Skills// "}},
		{"ghcr.io/acme/skills", []string{"ghcr.io/acme/skills", "GHCR.IO/acme/skills", "ghcr.io:443/acme/skills", "https://ghcr.io/acme/skills/", "HTTPS://Ghcr.Io.:443/Acme/Skills", "ghcr.io./acme//skills"}},
		{"docker.io/acme", []string{"docker.io/acme", "index.docker.io/acme", "registry-1.docker.io/acme/", "Index.Docker.IO:443/acme"}},
		{"ghcr.io", []string{"ghcr.io", "ghcr.io/", "GHCR.io:443", "https://ghcr.io/"}},
		{"ghcr.io:5000", []string{"ghcr.io:5000", "ghcr.io:5000/"}},
		{"oci:registry", []string{"oci:registry", "oci:./registry/", "oci:registry/x/.."}},
		{"oci:/srv/Skills", []string{"oci:/srv/Skills", "oci:/srv//Skills/"}},
		{"*", []string{"*", " * "}},
	} {
		for _, in := range tc.ins {
			if got := CanonicalPrefix(in); got != tc.want {
				t.Errorf("CanonicalPrefix(%q) = %q; want %q", in, got, tc.want)
			}
		}
	}
	// Hosts that only DNS says are one machine stay apart.
	if a, b := CanonicalPrefix("localhost:5000/x"), CanonicalPrefix("127.0.0.1:5000/x"); a == b {
		t.Errorf("CanonicalPrefix made localhost and 127.0.0.1 one prefix: %q", a)
	}
}
