package verify

import (
	"bytes"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/skillpm/skillpm/internal/boundedfile"
	"github.com/skillpm/skillpm/registry/ociref"
)

// Requirements a rule can make.
const (
	RequireNone   = "none"   // signatures are checked when present, never demanded
	RequireSigned = "signed" // nothing is accepted unless a trusted signature verifies
)

// PolicyVersion is the policy format version this package reads.
const PolicyVersion = 1

// Policy is a trust policy: rules per registry or repository prefix.
// The rule with the longest matching prefix applies; a repository no
// rule matches is not required to be signed. See README.md ("Trust").
type Policy struct {
	Version int `yaml:"version"`
	// TrustedRoot is a sigstore trusted_root.json for keyless
	// identities (relative to the policy file). Empty means the Sigstore
	// public-good root, fetched with TUF when first needed.
	TrustedRoot string `yaml:"trustedRoot,omitempty"`
	Rules       []Rule `yaml:"rules"`

	// Path is the file the policy was read from ("" when parsed from
	// bytes); relative paths in it are relative to its folder.
	Path string `yaml:"-"`
}

// Rule is what a policy says about the repositories under Prefix.
type Rule struct {
	// Prefix is a registry, a repository path prefix
	// ("ghcr.io/acme/skills"), an "oci:PATH" prefix, or "*" for every
	// repository. It matches whole path segments.
	Prefix string `yaml:"prefix"`
	// Require is "signed" (the default) or "none".
	Require string `yaml:"require,omitempty"`
	// Keys are PEM public key files (relative to the policy file).
	Keys []string `yaml:"keys,omitempty"`
	// Identities are trusted keyless signers.
	Identities []Identity `yaml:"identities,omitempty"`
	// Provenance, when set, also demands a verified SLSA provenance
	// attestation from a trusted signer.
	Provenance *ProvenanceRule `yaml:"provenance,omitempty"`
	// Vetted, when set, demands a vetted attestation (PredicateVetted)
	// from one of its signers, whatever Require says. A rule with only
	// a vetted: block trusts the mirror's vetting alone.
	Vetted *VettedRule `yaml:"vetted,omitempty"`
	// Audit, when set, refuses to install skills whose content audit
	// (package audit) finds problems at or above Audit.FailOn.
	Audit *AuditRule `yaml:"audit,omitempty"`

	line int
	keys []*ecdsa.PublicKey
}

// Identity is a trusted keyless signer: the certificate's OIDC issuer
// and subject (SAN), each exact or a regular expression (RE2, anchor it
// yourself).
type Identity struct {
	Issuer        string `yaml:"issuer,omitempty" json:"issuer,omitempty"`
	IssuerRegexp  string `yaml:"issuerRegexp,omitempty" json:"issuerRegexp,omitempty"`
	Subject       string `yaml:"subject,omitempty" json:"subject,omitempty"`
	SubjectRegexp string `yaml:"subjectRegexp,omitempty" json:"subjectRegexp,omitempty"`
}

// ProvenanceRule constrains the provenance a rule requires.
type ProvenanceRule struct {
	// SourceRepository is a regular expression the provenance's source
	// repository URI must match ("^https://github\.com/acme/").
	SourceRepository string `yaml:"sourceRepository"`

	re *regexp.Regexp
}

// maxKeyFile bounds a public key file a policy names: a PEM P-256 key
// is under 200 bytes, and the policy may come from skills.yaml.
const maxKeyFile = 64 << 10

// MaxPolicySize bounds a trust policy file: skills.yaml may name one, so
// it is read as hostile input.
const MaxPolicySize = 1 << 20

// ReadPolicy reads and validates the policy file at path: a regular file
// (a link to one is followed) of at most MaxPolicySize bytes.
func ReadPolicy(path string) (*Policy, error) {
	data, err := boundedfile.Read(path, MaxPolicySize)
	if errors.Is(err, boundedfile.ErrNotRegular) || errors.Is(err, boundedfile.ErrTooLarge) {
		return nil, fmt.Errorf("trust policy %s: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("trust policy: %w", err) // names the path
	}
	return ParsePolicy(path, data)
}

// ParsePolicy parses and validates a policy; path names it in errors
// and anchors its relative paths. Errors name the file and line.
func ParsePolicy(path string, data []byte) (*Policy, error) {
	name := path
	if name == "" {
		name = "trust policy"
	}
	p := &Policy{Path: path}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	for {
		// Decoded, only the first document counts: rules after a "---"
		// would never be enforced, without a word.
		var extra yaml.Node
		err := dec.Decode(&extra)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil || !emptyDocument(&extra) {
			return nil, &policyFileError{file: name, line: extra.Line, msg: "a second YAML document; a policy is one document (remove the ---)"}
		}
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root)
	if line, key := emptyRuleBlock(&root); key != "" {
		// Decoded, an empty block is no block: "vetted:" with its keys
		// mis-indented would demand nothing, without a word.
		want := "keys: or identities:"
		if strings.HasSuffix(key, "audit") {
			want = "fail_on:"
		}
		return nil, &policyFileError{file: name, line: line, msg: fmt.Sprintf("%s: has no value; give it %s (or remove it)", key, want)}
	}
	lines := ruleLines(&root)
	for i := range p.Rules {
		if i < len(lines) {
			p.Rules[i].line = lines[i]
		}
	}
	if err := p.validate(name); err != nil {
		return nil, err
	}
	return p, nil
}

// emptyDocument reports whether a YAML document holds nothing (a
// trailing "---").
func emptyDocument(doc *yaml.Node) bool {
	for _, n := range doc.Content {
		if n.Kind != yaml.ScalarNode || n.Tag != "!!null" {
			return false
		}
	}
	return true
}

// ruleLines returns the line of each item of the top-level rules list.
func ruleLines(root *yaml.Node) []int {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "rules" {
			var out []int
			for _, it := range m.Content[i+1].Content {
				out = append(out, it.Line)
			}
			return out
		}
	}
	return nil
}

// emptyRuleBlock finds a rule's vetted:, provenance: or audit: key with no value
// and returns its line and name.
func emptyRuleBlock(root *yaml.Node) (int, string) {
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return 0, ""
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value != "rules" {
			continue
		}
		for _, rule := range m.Content[i+1].Content {
			for j := 0; j+1 < len(rule.Content); j += 2 {
				k, v := rule.Content[j], rule.Content[j+1]
				if (k.Value == "vetted" || k.Value == "provenance" || k.Value == "audit") && v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
					return k.Line, k.Value
				}
				if k.Value == "vetted" && v.Kind == yaml.MappingNode {
					for n := 0; n+1 < len(v.Content); n += 2 {
						if vk, vv := v.Content[n], v.Content[n+1]; vk.Value == "audit" && vv.Kind == yaml.ScalarNode && vv.Tag == "!!null" {
							return vk.Line, "vetted.audit"
						}
					}
				}
			}
		}
	}
	return 0, ""
}

// policyFileError is a policy file that cannot be used, by file and line.
type policyFileError struct {
	file string
	line int
	msg  string
	err  error // what msg wraps, if anything
}

func (e *policyFileError) Error() string {
	if e.line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
	}
	return e.file + ": " + e.msg
}

func (e *policyFileError) Unwrap() error { return e.err }

func (p *Policy) validate(name string) error {
	bad := func(line int, format string, args ...any) error {
		err := fmt.Errorf(format, args...)
		return &policyFileError{file: name, line: line, msg: err.Error(), err: errors.Unwrap(err)}
	}
	if p.Version != PolicyVersion {
		return bad(0, "version is %d; this skillpm reads version: %d", p.Version, PolicyVersion)
	}
	seen := map[string]bool{}
	for i := range p.Rules {
		r := &p.Rules[i]
		r.Prefix = ociref.CanonicalPrefix(r.Prefix)
		switch {
		case r.Prefix == "":
			return bad(r.line, "rule %d has no prefix (a registry, repository prefix, oci:PATH or \"*\")", i+1)
		case seen[r.Prefix]:
			return bad(r.line, "prefix %q appears twice", r.Prefix)
		}
		seen[r.Prefix] = true
		if why := unmatchable(r.Prefix); why != "" {
			return bad(r.line, "prefix %q can match no repository: %s", r.Prefix, why)
		}
		if r.Require == "" {
			r.Require = RequireSigned
			if (r.Vetted != nil || r.Audit != nil) && len(r.Keys) == 0 && len(r.Identities) == 0 {
				r.Require = RequireNone // the vetted attestation, or the audit, is the requirement
			}
		}
		if r.Require != RequireSigned && r.Require != RequireNone {
			return bad(r.line, "require is %q; want %q or %q", r.Require, RequireSigned, RequireNone)
		}
		if r.Require == RequireSigned && len(r.Keys) == 0 && len(r.Identities) == 0 {
			return bad(r.line, "prefix %q requires signatures but trusts no keys and no identities", r.Prefix)
		}
		if r.Provenance != nil {
			if r.Require != RequireSigned {
				return bad(r.line, "provenance needs require: signed")
			}
			re, err := regexp.Compile(r.Provenance.SourceRepository)
			if err != nil || r.Provenance.SourceRepository == "" {
				return bad(r.line, "provenance.sourceRepository %q is not a regular expression: %v", r.Provenance.SourceRepository, err)
			}
			r.Provenance.re = re
		}
		if err := r.Audit.compile(); err != nil {
			return bad(r.line, "prefix %q: %v", r.Prefix, err)
		}
		if err := p.loadTrust(r, r.Keys, r.Identities, "", bad); err != nil {
			return err
		}
		if vr := r.Vetted; vr != nil {
			if len(vr.Keys) == 0 && len(vr.Identities) == 0 {
				return bad(r.line, "prefix %q: vetted needs the keys or identities of the mirror that vets", r.Prefix)
			}
			if err := vr.Audit.compile(); err != nil {
				return bad(r.line, "prefix %q: vetted %v", r.Prefix, err)
			}
			vr.trust = &Rule{Prefix: r.Prefix, Require: RequireSigned, Keys: vr.Keys, Identities: vr.Identities, line: r.line}
			if err := p.loadTrust(vr.trust, vr.Keys, vr.Identities, "vetted ", bad); err != nil {
				return err
			}
		}
	}
	return nil
}

// unmatchable says why the canonical prefix can match no repository
// (nor source), "" when it can. Such a rule would never apply, and "*"
// (or nothing) would in its place, without a word.
func unmatchable(prefix string) string {
	if prefix == "*" || strings.HasPrefix(prefix, ociref.LayoutPrefix) {
		return ""
	}
	if i := strings.IndexAny(prefix, "*?"); i >= 0 {
		fix := strings.TrimRight(prefix[:i], "/.")
		if !strings.Contains(prefix[:i], "/") {
			fix = "*" // a pattern in the host: no prefix but "*" covers it
		}
		return fmt.Sprintf("a prefix is not a pattern, it covers every repository under it (write %q)", fix)
	}
	if strings.HasPrefix(prefix, "file:") || strings.HasPrefix(prefix, "local:") {
		return "" // source names (a file: path may hold a drive letter's colon)
	}
	host, path, _ := strings.Cut(prefix, "/")
	if i := strings.IndexAny(path, ":@"); i >= 0 {
		return fmt.Sprintf("a prefix names repositories, not tags or digests (write %q)", host+"/"+path[:i])
	}
	return ""
}

// loadTrust reads the keys and checks the identities of a rule (what
// names them, for errors, is what, "" or "vetted ").
func (p *Policy) loadTrust(r *Rule, keys []string, ids []Identity, what string, bad func(int, string, ...any) error) error {
	for _, k := range keys {
		data, err := boundedfile.Read(p.resolve(k), maxKeyFile)
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the key as the policy names it is enough
		}
		if err != nil {
			return bad(r.line, "%skey %s: %w", what, k, err)
		}
		pub, err := ParsePublicKey(data)
		if err != nil {
			return bad(r.line, "%skey %s: %v", what, k, err)
		}
		r.keys = append(r.keys, pub)
	}
	for j, id := range ids {
		if (id.Issuer == "") == (id.IssuerRegexp == "") || (id.Subject == "") == (id.SubjectRegexp == "") {
			return bad(r.line, "%sidentity %d needs one of issuer/issuerRegexp and one of subject/subjectRegexp", what, j+1)
		}
		for _, s := range []string{id.IssuerRegexp, id.SubjectRegexp} {
			if _, err := regexp.Compile(s); err != nil {
				return bad(r.line, "%sidentity %d: %v", what, j+1, err)
			}
		}
	}
	return nil
}

// resolve makes a path of the policy relative to its folder.
func (p *Policy) resolve(path string) string {
	if filepath.IsAbs(path) || p.Path == "" {
		return path
	}
	return filepath.Join(filepath.Dir(p.Path), path)
}

// Rule returns the rule for repo (a repository as skills.lock writes
// it), or nil when none matches.
func (p *Policy) Rule(repo string) *Rule {
	repo = ociref.CanonicalPrefix(repo)
	var best *Rule
	for i := range p.Rules {
		r := &p.Rules[i]
		if !r.matches(repo) {
			continue
		}
		if best == nil || best.Prefix == "*" || (r.Prefix != "*" && len(r.Prefix) > len(best.Prefix)) {
			best = r
		}
	}
	return best
}

func (r *Rule) matches(repo string) bool {
	if r.Prefix == "*" {
		return true
	}
	return repo == r.Prefix || strings.HasPrefix(repo, r.Prefix+"/")
}
