package verify

import "testing"

// Policy prefixes are canonicalised by ociref.CanonicalPrefix, the rule
// mirrors use too: every spelling of a registry matches its repositories.
func TestPolicyRuleSpellings(t *testing.T) {
	p, err := ParsePolicy("", []byte(`version: 1
rules:
  - {prefix: "*", require: none}
  - {prefix: "https://LocalHost:5000/Skills/", require: none}
  - {prefix: "index.docker.io/acme", require: none}
  - {prefix: "GHCR.IO.:443//acme", require: none}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ repo, want string }{
		{"localhost:5000/skills/pdf", "localhost:5000/skills"},
		{"LOCALHOST:5000/skills/pdf", "localhost:5000/skills"},
		{"127.0.0.1:5000/skills/pdf", "*"},
		{"docker.io/acme/pdf", "docker.io/acme"},
		{"registry-1.docker.io/acme/pdf", "docker.io/acme"},
		{"ghcr.io/acme/pdf", "ghcr.io/acme"},
		{"ghcr.io:443/acme/pdf", "ghcr.io/acme"},
	} {
		if got := p.Rule(tc.repo).Prefix; got != tc.want {
			t.Errorf("Rule(%q) = %q; want %q", tc.repo, got, tc.want)
		}
	}
	// Two spellings of one prefix are one prefix, named twice.
	if _, err := ParsePolicy("", []byte("version: 1\nrules:\n  - {prefix: ghcr.io/acme, require: none}\n  - {prefix: GHCR.IO:443/acme/, require: none}\n")); err == nil {
		t.Error("two spellings of ghcr.io/acme: want a duplicate prefix error")
	}
}
