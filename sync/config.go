// Package sync mirrors skills from an upstream registry prefix into an
// org registry or a folder of OCI layouts, vetting each version against a
// policy first. Copies preserve manifest digests and carry the
// signature and provenance referrers along, so upstream signatures still
// verify on the mirror and digest-pinned locks resolve the same bytes.
//
// A run is incremental (a version whose tag and referrers are already on
// the mirror is skipped without uploading anything) and crash-consistent:
// blobs go first, then manifests, then referrers, and the tag last, so a
// tag never points at a manifest whose blobs are missing, and the next
// run finishes what a failed one started.
package sync

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"github.com/Masterminds/semver/v3"
	"gopkg.in/yaml.v3"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/skill"
)

// Config is sync.yaml: where to copy from and to, what, and the policy
// a version must pass to be copied.
type Config struct {
	// From is the upstream prefix: a registry prefix
	// ("ghcr.io/acme/skills") or a folder of OCI layouts ("oci:DIR"); or
	// a git repository or well-known origin (see ParseUpstream).
	From string `yaml:"from"`
	// To is the mirror prefix, in the same forms as From.
	To string `yaml:"to"`
	// Repositories lists the repositories below From to consider. Empty
	// means every repository the registry's catalog API lists.
	Repositories []string `yaml:"repositories"`
	// Content rules select what is copied, as zot's sync content rules
	// do: a version is copied when any rule matches it. No rules means
	// every version.
	Content []Rule `yaml:"content"`
	// Policy is what a version must pass.
	Policy Policy `yaml:"policy"`
	// Attest, when set, signs a vetted attestation (verify.PredicateVetted)
	// for every version the policy accepts and attaches it on the mirror,
	// so that clients can require "vetted by our org".
	Attest *AttestConfig `yaml:"attest"`
}

// AttestConfig says how the mirror signs its vetted attestations: with
// a private key (from 'skillpm key generate'; its passphrase from
// SKILLPM_KEY_PASSWORD) or keyless. The command line can say it instead.
type AttestConfig struct {
	// Key is the private key file, relative to sync.yaml.
	Key string `yaml:"key"`
	// Keyless signs with a Fulcio certificate for the run's OIDC identity.
	Keyless bool `yaml:"keyless"`
}

// Rule selects versions: all of its set fields must match.
type Rule struct {
	// Name is a glob (path.Match) over the repository path below From:
	// "pdf*", "team/*".
	Name string `yaml:"name"`
	// Versions is a semver range: ">=1.2 <2", "^1".
	Versions string `yaml:"versions"`
	// Tags is a regular expression the tag must match: `^1\.`.
	Tags string `yaml:"tags"`

	versions *semver.Constraints
	tags     *regexp.Regexp
}

// Policy is the vetting a version must pass before it is copied. The
// zero value lets everything through.
type Policy struct {
	// Lint is the lint level a skill must be clean at: "error" (no
	// errors), "warning" (no warnings either) or "" / "none" (not
	// linted).
	Lint string `yaml:"lint"`
	// Licenses is the allow-list of SPDX license identifiers. Empty
	// means any license, or none.
	Licenses []string `yaml:"licenses"`
	// Permissions bounds what a skill may declare.
	Permissions PermissionPolicy `yaml:"permissions"`
	// Signature, when set, requires a signature by a trusted identity.
	Signature *SignaturePolicy `yaml:"signature"`
	// Audit, when set, rejects versions whose content audit (package
	// audit) finds problems at or above FailOn.
	Audit *AuditPolicy `yaml:"audit"`
}

// AuditPolicy is the content audit a version must pass.
type AuditPolicy struct {
	// FailOn is the lowest severity that rejects a version: critical,
	// high, medium or low.
	FailOn string `yaml:"fail_on"`

	failOn audit.Severity
}

// threshold is FailOn, compiled (a Policy built in code is parsed here).
func (a *AuditPolicy) threshold() audit.Severity {
	if a.failOn == audit.None {
		a.failOn, _ = audit.ParseSeverity(a.FailOn)
	}
	return a.failOn
}

// PermissionPolicy is an allow-list for the permissions a skill declares
// in its frontmatter (or config). A nil field is not checked.
type PermissionPolicy struct {
	// Network lists the outbound hosts a skill may declare; "*" allows
	// any, an empty list none.
	Network *[]string `yaml:"network"`
	// Subprocess false rejects skills that declare allow_subprocess.
	Subprocess *bool `yaml:"subprocess"`
	// FilesystemWrite lists the write paths a skill may declare; an empty
	// list allows none.
	FilesystemWrite *[]string `yaml:"filesystem_write"`
	// RequireDeclared rejects skills that declare no permissions at all.
	RequireDeclared bool `yaml:"require_declared"`
}

// SignaturePolicy says whose signatures are trusted: a trust policy
// file (README.md, "Trust"), or public keys trusted for every
// repository. Paths are relative to sync.yaml.
type SignaturePolicy struct {
	// Policy is a trust policy file; its rule for each upstream
	// repository applies.
	Policy string `yaml:"policy"`
	// Keys are PEM public key files, any of which may sign.
	Keys []string `yaml:"keys"`
}

// LoadConfig reads a sync.yaml file. Unknown keys, like any other
// configuration that cannot be used, are an ErrConfig.
func LoadConfig(p string) (*Config, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	// Unknown keys are errors: a misspelt "signatures:" must not turn
	// signature vetting off without a word.
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w: %v", p, ErrConfig, err)
	}
	if emptyAudit(data) {
		// Decoded, "audit:" with its fail_on mis-indented is no audit.
		return nil, fmt.Errorf("%s: %w: policy.audit has no value; give it fail_on: (or remove it)", p, ErrConfig)
	}
	if err := c.compile(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	abs := func(f string) string {
		if f == "" || filepath.IsAbs(f) {
			return f
		}
		return filepath.Join(filepath.Dir(p), f)
	}
	if sp := c.Policy.Signature; sp != nil {
		sp.Policy = abs(sp.Policy)
		for i := range sp.Keys {
			sp.Keys[i] = abs(sp.Keys[i])
		}
	}
	if c.Attest != nil {
		c.Attest.Key = abs(c.Attest.Key)
	}
	return &c, nil
}

// emptyAudit reports whether policy.audit is present with no value.
func emptyAudit(data []byte) bool {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 {
		return false
	}
	child := func(m *yaml.Node, key string) *yaml.Node {
		if m == nil || m.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if m.Content[i].Value == key {
				return m.Content[i+1]
			}
		}
		return nil
	}
	a := child(child(root.Content[0], "policy"), "audit")
	return a != nil && a.Kind == yaml.ScalarNode && a.Tag == "!!null"
}

// ErrConfig marks a sync configuration that cannot be used.
var ErrConfig = errors.New("invalid sync configuration")

// compile checks the configuration and compiles its rules.
func (c *Config) compile() error {
	for i := range c.Content {
		r := &c.Content[i]
		if r.Name != "" {
			if _, err := path.Match(r.Name, ""); err != nil {
				return fmt.Errorf("%w: content rule %d: name %q: %v", ErrConfig, i+1, r.Name, err)
			}
		}
		if r.Versions != "" {
			cons, err := semver.NewConstraint(r.Versions)
			if err != nil {
				return fmt.Errorf("%w: content rule %d: versions %q: %v", ErrConfig, i+1, r.Versions, err)
			}
			r.versions = cons
		}
		if r.Tags != "" {
			re, err := regexp.Compile(r.Tags)
			if err != nil {
				return fmt.Errorf("%w: content rule %d: tags %q: %v", ErrConfig, i+1, r.Tags, err)
			}
			r.tags = re
		}
	}
	if sp := c.Policy.Signature; sp != nil && sp.Policy == "" && len(sp.Keys) == 0 {
		return fmt.Errorf("%w: policy.signature needs a trust policy file (policy:) or public keys (keys:)", ErrConfig)
	}
	if a := c.Policy.Audit; a != nil {
		s, err := audit.ParseSeverity(a.FailOn)
		if err != nil || s == audit.None {
			return fmt.Errorf("%w: policy.audit.fail_on %q: want critical, high, medium or low", ErrConfig, a.FailOn)
		}
		a.failOn = s
	}
	switch c.Policy.Lint {
	case "", "none", "error", "warning":
	default:
		return fmt.Errorf("%w: policy.lint %q: want none, error or warning", ErrConfig, c.Policy.Lint)
	}
	if a := c.Attest; a != nil && (a.Key == "") == !a.Keyless {
		return fmt.Errorf("%w: attest needs a private key (key:) or keyless: true, not both", ErrConfig)
	}
	return nil
}

// Checks names what the policy checks, as a vetted attestation records
// it: "signature", "lint:error" or "lint:warning", "license",
// "audit:SEVERITY" (the audit's fail_on), "permissions".
func (p *Policy) Checks() []string {
	var out []string
	if p.Signature != nil {
		out = append(out, "signature")
	}
	if _, ok := p.lintOptions(); ok {
		out = append(out, "lint:"+p.Lint)
	}
	if len(p.Licenses) > 0 {
		out = append(out, "license")
	}
	if p.Audit != nil {
		out = append(out, "audit:"+p.Audit.threshold().String())
	}
	pp := p.Permissions
	if pp.Network != nil || pp.Subprocess != nil || pp.FilesystemWrite != nil || pp.RequireDeclared {
		out = append(out, "permissions")
	}
	return out
}

// Selected reports whether the rules select repo (below From) at tag,
// which stands for version v.
func (c *Config) Selected(repo, tag string, v *semver.Version) bool {
	if len(c.Content) == 0 {
		return true
	}
	for _, r := range c.Content {
		if r.matches(repo, tag, v) {
			return true
		}
	}
	return false
}

func (r *Rule) matches(repo, tag string, v *semver.Version) bool {
	if r.Name != "" {
		if ok, _ := path.Match(r.Name, repo); !ok {
			return false
		}
	}
	if r.versions != nil && (v == nil || !r.versions.Check(v)) {
		return false
	}
	if r.tags != nil && !r.tags.MatchString(tag) {
		return false
	}
	return true
}

// lintOptions returns the lint options of the policy, and false when the
// policy does not lint.
func (p *Policy) lintOptions() (skill.LintOptions, bool) {
	switch p.Lint {
	case "error":
		return skill.LintOptions{}, true
	case "warning":
		return skill.LintOptions{Strict: true}, true
	}
	return skill.LintOptions{}, false
}
