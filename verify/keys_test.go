package verify

import (
	"errors"
	"strings"
	"testing"
)

func TestGenerateAndLoadKey(t *testing.T) {
	priv, pub, err := GenerateKey([]byte("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(priv), "-----BEGIN "+PEMPrivateKey+"-----"; !strings.HasPrefix(got, want) {
		t.Errorf("private key starts %q; want %q", got[:40], want)
	}
	if strings.Contains(string(priv), "s3cret") {
		t.Error("the passphrase appears in the key file")
	}
	kp, err := LoadPrivateKey(priv, []byte("s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	pk, err := ParsePublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	if !pk.Equal(kp.GetPublicKey()) {
		t.Error("the public key file is not the private key's")
	}
	if _, err := LoadPrivateKey(priv, []byte("wrong")); !errors.Is(err, ErrBadPassphrase) {
		t.Errorf("wrong passphrase: err = %v; want ErrBadPassphrase", err)
	}
	if _, err := LoadPrivateKey(pub, []byte("s3cret")); err == nil {
		t.Error("a public key loaded as a private key")
	}
}

func TestParsePolicyErrors(t *testing.T) {
	dir := t.TempDir()
	testKey(t, dir, "good")
	for _, tc := range []struct {
		name, text, want string
	}{
		{"unknown field", "version: 1\nrulez: []\n", "line 2: field rulez not found"},
		{"version", "version: 2\n", "version is 2"},
		{"no prefix", "version: 1\nrules:\n  - keys: [good.pub]\n", "policy.yaml:3: rule 1 has no prefix"},
		{"bad require", "version: 1\nrules:\n  - prefix: a.io\n    require: maybe\n", `policy.yaml:3: require is "maybe"`},
		{"signed without trust", "version: 1\nrules:\n  - prefix: a.io\n", "requires signatures but trusts no keys"},
		{"missing key", "version: 1\nrules:\n  - prefix: a.io\n    require: none\n  - prefix: b.io\n    keys: [nope.pub]\n", "policy.yaml:5: key nope.pub: no such file"},
		{"half identity", "version: 1\nrules:\n  - prefix: a.io\n    identities: [{issuer: x}]\n", "identity 1 needs one of issuer/issuerRegexp and one of subject/subjectRegexp"},
		{"bad regexp", "version: 1\nrules:\n  - prefix: a.io\n    identities: [{issuer: x, subjectRegexp: '('}]\n", "identity 1: error parsing regexp"},
		{"duplicate", "version: 1\nrules:\n  - prefix: a.io/\n    require: none\n  - prefix: a.io\n    require: none\n", `prefix "a.io" appears twice`},
		{"provenance without signatures", "version: 1\nrules:\n  - prefix: a.io\n    require: none\n    provenance: {sourceRepository: x}\n", "provenance needs require: signed"},
		// A prefix that can match no repository leaves its rule unapplied:
		// "*" would apply instead, without a word.
		{"glob prefix", "version: 1\nrules:\n  - prefix: ghcr.io/acme/*\n    keys: [good.pub]\n", `policy.yaml:3: prefix "ghcr.io/acme/*" can match no repository: a prefix is not a pattern, it covers every repository under it (write "ghcr.io/acme")`},
		{"glob in the middle", "version: 1\nrules:\n  - prefix: ghcr.io/*/skills\n    keys: [good.pub]\n", `prefix "ghcr.io/*/skills" can match no repository`},
		{"question mark", "version: 1\nrules:\n  - prefix: ghcr.io/acme?\n    keys: [good.pub]\n", `prefix "ghcr.io/acme?" can match no repository`},
		{"tag", "version: 1\nrules:\n  - prefix: ghcr.io/acme/pdf:1.0.0\n    keys: [good.pub]\n", `prefix "ghcr.io/acme/pdf:1.0.0" can match no repository: a prefix names repositories, not tags or digests (write "ghcr.io/acme/pdf")`},
		{"digest", "version: 1\nrules:\n  - prefix: ghcr.io/acme/pdf@sha256:abc\n    keys: [good.pub]\n", `prefix "ghcr.io/acme/pdf@sha256:abc" can match no repository`},
		// A second document would be ignored: its rules never enforced.
		{"two documents", "version: 1\nrules:\n  - prefix: a.io\n    require: none\n---\nversion: 1\nrules:\n  - prefix: b.io\n    keys: [good.pub]\n", "policy.yaml:5: a second YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParsePolicy(dir+"/policy.yaml", []byte(tc.text))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v; want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestPolicyRule(t *testing.T) {
	p, err := ParsePolicy("", []byte(`version: 1
rules:
  - {prefix: "*", require: none}
  - {prefix: ghcr.io/acme, require: none}
  - {prefix: ghcr.io/acme/skills/, require: none}
  - {prefix: "oci:./registry", require: none}
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ repo, want string }{
		{"ghcr.io/acme/skills/pdf", "ghcr.io/acme/skills"},
		{"ghcr.io/acme/other", "ghcr.io/acme"},
		{"ghcr.io/acme", "ghcr.io/acme"},
		{"ghcr.io/acme-evil/x", "*"},
		{"oci:registry/pdf", "oci:registry"},
		{"oci:./registry/pdf", "oci:registry"},
		{"docker.io/x/y", "*"},
	} {
		if got := p.Rule(tc.repo).Prefix; got != tc.want {
			t.Errorf("Rule(%q) = %q; want %q", tc.repo, got, tc.want)
		}
	}
}

// Document markers around the one document are fine, as are prefixes of
// every kind of name a rule can match.
func TestParsePolicyDocumentMarkers(t *testing.T) {
	prefixes := "version: 1\nrules:\n" +
		"  - {prefix: \"*\", require: none}\n  - {prefix: \"localhost:5000/a\", require: none}\n  - {prefix: \"[::1]:5000\", require: none}\n" +
		"  - {prefix: \"oci:./vendor/x\", require: none}\n  - {prefix: \"file:/srv/mono\", require: none}\n  - {prefix: \"local:skills\", require: none}\n" +
		"  - {prefix: \"github.com/acme/skills\", require: none}\n  - {prefix: \"https://GHCR.IO:443/Acme/\", require: none}\n"
	for _, text := range []string{"---\nversion: 1\nrules: []\n", "version: 1\nrules: []\n---\n", "version: 1\nrules: []\n...\n", prefixes} {
		if _, err := ParsePolicy("policy.yaml", []byte(text)); err != nil {
			t.Errorf("ParsePolicy(%q): %v", text, err)
		}
	}
}
