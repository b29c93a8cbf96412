package sync

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/audit"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/verify"
)

// ArtifactTypeSigstoreBundle is the artifactType of signature and
// attestation referrers (cosign's bundle spec).
const ArtifactTypeSigstoreBundle = "application/vnd.dev.sigstore.bundle.v0.3+json"

// ErrUnsigned: a signature is required and the version has no signature
// referrer at all.
var ErrUnsigned = errors.New("no signature")

// ErrNoTrustPolicy: the sync policy asks for signatures and no verifier
// was given to check them.
var ErrNoTrustPolicy = errors.New("signature vetting requires the trust policy; not configured")

// SignatureVerifier checks a skill version's signatures against the
// policy's trusted identities. The trust package (verify/) provides the
// real one; sync only needs this.
type SignatureVerifier interface {
	// VerifySignature checks the signature referrers of manifest (read
	// from src, where repo lives) and returns the identity that signed
	// it, or an error saying why none is trusted.
	VerifySignature(ctx context.Context, src registry.Target, repo registry.Reference, manifest ocispec.Descriptor, referrers []ocispec.Descriptor, policy *SignaturePolicy) (signer string, err error)
}

// Candidate is one upstream version being vetted.
type Candidate struct {
	Repo      registry.Reference // upstream repository, pinned to Manifest
	Manifest  ocispec.Descriptor
	Referrers []ocispec.Descriptor
	// Skill is the skill as pulled (its folder is linted); Config is its
	// config blob, nil for artifacts in other formats.
	Dir    string
	Skill  *skill.Skill
	Config *registry.Config
}

// Rejection says why a version failed vetting.
type Rejection struct {
	Check  string // "lint", "license", "permissions", "audit", "signature"
	Reason string
	// Findings are the audit findings that rejected it (check "audit"),
	// worst first.
	Findings []audit.Finding
}

func (r *Rejection) Error() string { return r.Check + ": " + r.Reason }

// vetter applies a Policy.
type vetter struct {
	policy   Policy
	linter   *skill.Linter
	verifier SignatureVerifier
}

// verdict is what vetting established about an accepted version, for
// its report line and vetted attestation.
type verdict struct {
	// signer is the verified identity, when signatures were checked.
	signer string
	// audit is the content audit's result, when the policy audits.
	audit *verify.AuditSummary
}

// vet returns nil when c passes every check, else the first failure. A
// registry that fails while signatures are fetched is an error, not a
// rejection: the next run tries again.
func (v *vetter) vet(ctx context.Context, src registry.Target, c *Candidate) (vd verdict, rej *Rejection, err error) {
	if opts, ok := v.policy.lintOptions(); ok {
		res := v.linter.Lint(c.Dir, opts)
		if n := res.Errors(); n > 0 {
			var first []string
			for _, d := range res.Diagnostics {
				if d.Severity == skill.SeverityError && len(first) < 3 {
					first = append(first, "["+d.Rule+"] "+d.Message)
				}
			}
			return vd, &Rejection{Check: "lint", Reason: fmt.Sprintf("%d lint findings at level %s: %s", n, v.policy.Lint, strings.Join(first, "; "))}, nil
		}
	}
	if r := checkLicense(v.policy.Licenses, license(c)); r != nil {
		return vd, r, nil
	}
	if r := checkPermissions(v.policy.Permissions, permissions(c)); r != nil {
		return vd, r, nil
	}
	if ap := v.policy.Audit; ap != nil {
		var r *Rejection
		if vd.audit, r, err = vetAudit(ctx, ap, c); r != nil || err != nil {
			return vd, r, err
		}
	}
	if sp := v.policy.Signature; sp != nil {
		if !slices.ContainsFunc(c.Referrers, func(d ocispec.Descriptor) bool { return d.ArtifactType == ArtifactTypeSigstoreBundle }) {
			return vd, &Rejection{Check: "signature", Reason: ErrUnsigned.Error() + " (no " + ArtifactTypeSigstoreBundle + " referrer)"}, nil
		}
		if v.verifier == nil {
			return vd, &Rejection{Check: "signature", Reason: ErrNoTrustPolicy.Error()}, nil
		}
		id, err := v.verifier.VerifySignature(ctx, src, c.Repo, c.Manifest, c.Referrers, sp)
		switch {
		case errors.Is(err, registry.ErrNetwork), errors.Is(err, registry.ErrUnauthorized), errors.Is(err, context.Canceled):
			return vd, nil, fmt.Errorf("verify signatures of %s: %w", c.Repo, err)
		case err != nil:
			return vd, &Rejection{Check: "signature", Reason: err.Error()}, nil
		}
		vd.signer = id
	}
	return vd, nil, nil
}

func license(c *Candidate) string {
	if c.Skill != nil && c.Skill.Frontmatter.License != "" {
		return c.Skill.Frontmatter.License
	}
	if c.Config != nil {
		return c.Config.License
	}
	return ""
}

func permissions(c *Candidate) *skill.Permissions {
	if c.Skill != nil && c.Skill.Frontmatter.Permissions != nil {
		return c.Skill.Frontmatter.Permissions
	}
	if c.Config != nil {
		return c.Config.Permissions
	}
	return nil
}

// checkLicense accepts an SPDX expression when, for "A OR B", one side
// is allowed and, for "A AND B", both are. An empty allow-list accepts
// anything.
func checkLicense(allowed []string, expr string) *Rejection {
	if len(allowed) == 0 {
		return nil
	}
	if strings.TrimSpace(expr) == "" {
		return &Rejection{Check: "license", Reason: fmt.Sprintf("no license declared; allowed: %s", strings.Join(allowed, ", "))}
	}
	ok := func(id string) bool {
		id = strings.Trim(strings.TrimSpace(id), "()")
		return slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, id) })
	}
	for _, alt := range splitWord(expr, "OR") {
		all := true
		for _, id := range splitWord(alt, "AND") {
			all = all && ok(id)
		}
		if all {
			return nil
		}
	}
	return &Rejection{Check: "license", Reason: fmt.Sprintf("license %q is not allowed; allowed: %s", expr, strings.Join(allowed, ", "))}
}

func splitWord(s, word string) []string {
	f := strings.Fields(s)
	var out []string
	cur := []string{}
	for _, w := range f {
		if strings.EqualFold(w, word) {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
			continue
		}
		cur = append(cur, w)
	}
	return append(out, strings.Join(cur, " "))
}

// checkPermissions compares declared permissions with the allow-list.
func checkPermissions(p PermissionPolicy, got *skill.Permissions) *Rejection {
	if got == nil {
		if p.RequireDeclared {
			return &Rejection{Check: "permissions", Reason: "the skill declares no permissions and the policy requires them"}
		}
		return nil
	}
	if p.Subprocess != nil && !*p.Subprocess && got.Processes.AllowSubprocess {
		return &Rejection{Check: "permissions", Reason: "declares allow_subprocess; the policy allows no subprocesses"}
	}
	if p.Network != nil {
		for _, h := range got.Network.Outbound {
			if !allowedPattern(*p.Network, h) {
				return &Rejection{Check: "permissions", Reason: fmt.Sprintf("declares outbound network access to %q; allowed: %s", h, listOrNone(*p.Network))}
			}
		}
	}
	if p.FilesystemWrite != nil {
		for _, w := range got.Filesystem.Write {
			if !allowedPattern(*p.FilesystemWrite, w) {
				return &Rejection{Check: "permissions", Reason: fmt.Sprintf("declares filesystem write access to %q; allowed: %s", w, listOrNone(*p.FilesystemWrite))}
			}
		}
	}
	return nil
}

// allowedPattern reports whether v equals or matches (path.Match) one
// of the allowed patterns; "*" allows anything.
func allowedPattern(allowed []string, v string) bool {
	for _, a := range allowed {
		if a == "*" || a == v {
			return true
		}
		if ok, _ := path.Match(a, v); ok {
			return true
		}
	}
	return false
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// vetAudit scans the candidate's folder and rejects it when findings
// reach the policy's fail_on. Inline suppressions in upstream content
// do not count: the content is not the mirror's to vouch for. A folder
// the scanner cannot read as a skill is rejected too.
func vetAudit(ctx context.Context, ap *AuditPolicy, c *Candidate) (*verify.AuditSummary, *Rejection, error) {
	rep, err := audit.Scan(ctx, c.Dir, audit.Options{})
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return nil, nil, err
	case err != nil:
		return nil, &Rejection{Check: "audit", Reason: err.Error()}, nil
	}
	t := ap.threshold()
	var ae *verify.AuditError
	if errors.As(verify.CheckAudit(rep, verify.AuditThreshold{FailOn: t}), &ae) {
		return nil, &Rejection{Check: "audit", Reason: strings.TrimPrefix(ae.Summary(), "audit "), Findings: ae.Findings}, nil
	}
	return verify.SummarizeAudit(rep, t), nil, nil
}
