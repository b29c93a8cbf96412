package verify

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/opencontainers/go-digest"
	"golang.org/x/sync/errgroup"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
)

// Status is the verdict on one skill; Severity orders them.
type Status string

// Statuses, from the least to the most severe failure.
const (
	StatusOK Status = "ok"
	// StatusError: the check itself failed (a bad reference, a bug).
	StatusError Status = "error"
	// StatusNotInstalled: the skill is locked but in no target folder.
	StatusNotInstalled Status = "not-installed"
	// StatusNetwork: a registry could not be reached or refused access.
	StatusNetwork Status = "network"
	// StatusPolicy: the trust policy rejects the skill.
	StatusPolicy Status = "policy"
	// StatusTampered: a digest, blob, lock entry or installed file does
	// not match.
	StatusTampered Status = "tampered"
)

// Severity ranks s among failures: 0 for StatusOK (and unknown values),
// higher for worse.
func (s Status) Severity() int {
	switch s {
	case StatusError:
		return 1
	case StatusNotInstalled:
		return 2
	case StatusNetwork:
		return 3
	case StatusPolicy:
		return 4
	case StatusTampered:
		return 5
	}
	return 0
}

// Report is what was found about one skill (a locked one, or a reference
// given to check).
type Report struct {
	Name       string   `json:"name,omitempty"`
	Version    string   `json:"version,omitempty"`
	Repository string   `json:"repository"`
	Manifest   string   `json:"manifest"`
	Signer     string   `json:"signer,omitempty"`
	Provenance string   `json:"provenance,omitempty"`
	VettedBy   string   `json:"vettedBy,omitempty"` // the mirror that vetted it
	Status     Status   `json:"status"`
	Problems   []string `json:"problems,omitempty"`
	// Installed is "ok", "not installed", or the install.State of the
	// folders that do not match the lock; "" when not looked at.
	Installed string `json:"installed,omitempty"`
	// Vetting is the mirror's verified vetted statement (its checks and
	// audit result), when the policy asked for one.
	Vetting *Vetting `json:"vetting,omitempty"`
	// Policy is the effective trust rule applied: every policy layer's
	// rule for the repository.
	Policy *EffectiveRule `json:"policy,omitempty"`
	// Resolved is the manifest as the registry serves it; nil when it
	// could not be read.
	Resolved *registry.Resolved `json:"-"`
}

// Fail records a problem; the report's status becomes s when s is more
// severe than what was found so far.
func (r *Report) Fail(s Status, format string, args ...any) {
	r.Problems = append(r.Problems, oneLine(fmt.Sprintf(format, args...)))
	if s.Severity() > r.Status.Severity() {
		r.Status = s
	}
}

// Failed reports whether any problem was found.
func (r *Report) Failed() bool { return r.Status.Severity() > 0 }

// failFetch records a registry error with the status it deserves.
func (r *Report) failFetch(err error) {
	switch {
	case errors.Is(err, registry.ErrInsecure):
		// A redirect, token realm or credential the client refused
		// to follow or send: a policy, as install's exit 9.
		r.Fail(StatusPolicy, "%v", err)
	case errors.Is(err, registry.ErrNetwork), errors.Is(err, registry.ErrUnauthorized):
		r.Fail(StatusNetwork, "%v", err)
	case errors.Is(err, registry.ErrNotFound):
		r.Fail(StatusTampered, "the registry no longer serves %s: %v", r.Manifest, err)
	case errors.Is(err, registry.ErrIntegrity):
		r.Fail(StatusTampered, "%v", err)
	default:
		r.Fail(StatusError, "%v", err)
	}
}

// Trust checks skills against a trust policy, reading their signatures
// from a registry. Install uses Check (one error denies the install);
// verify uses Lock and Ref (a report per skill).
type Trust struct {
	// Client reads manifests, blobs and signatures. It should read no
	// cache (registry.Client.Fresh): what is checked is what the
	// registry serves now.
	Client *registry.Client
	// Verifier applies the policy; nil checks no signatures.
	Verifier *Verifier
}

// Check verifies the locked skill's manifest (in repo, the lock's
// repository made absolute) and returns the verified signer, "" when the
// policy asks for none. It is manager.Trust's method.
func (t *Trust) Check(ctx context.Context, s lockfile.Skill, repo string) (string, error) {
	ref, err := registry.ParseReference(repo)
	if err != nil {
		return "", err
	}
	d, err := digest.Parse(s.Manifest)
	if err != nil {
		return "", fmt.Errorf("%s: locked manifest %q: %w", s.Name, s.Manifest, registry.ErrIntegrity)
	}
	res, err := Check(ctx, t.Client, t.Verifier, s.Repository, ref.WithDigest(d))
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", s.Name, s.Version, err)
	}
	return res.Signer, nil
}

// CheckSource refuses a skill from a source that cannot carry a sigstore
// signature (a git repository, a local folder, a well-known index) when
// the policy rule for name (the source as a policy prefix sees it,
// github.com/acme/skills/pdf) requires signatures. It is
// manager.SourceTrust's method.
func (t *Trust) CheckSource(s lockfile.Skill, name string) error {
	if t.Verifier == nil || !t.Verifier.Required(name) {
		return nil
	}
	return &PolicyError{Repository: name, Manifest: digest.Digest(s.Manifest),
		Reason: fmt.Sprintf("%s: the trust policy requires signatures here, but a skill from %s cannot carry a sigstore signature; publish it to a registry and sign it (skillpm publish, skillpm sign), or give this source a policy rule of its own (prefix: %s, require: none)", s.Name, s.Repository, name)}
}

// Ref resolves ref afresh and checks the signatures of the skill manifest
// it names, the one 'skillpm sign' signs: a range or a bare repository
// picks its tag as install does, and an image index is looked into.
func (t *Trust) Ref(ctx context.Context, ref registry.Reference, given string) *Report {
	r := &Report{Repository: ref.Repo(), Manifest: given}
	res, err := t.Client.Resolve(ctx, ref)
	if err != nil {
		r.failFetch(err)
		return r
	}
	r.Resolved = res
	r.Manifest = res.Ref.Digest.String()
	r.Version = res.Version()
	t.signature(ctx, r, r.Repository, ref.WithDigest(res.Ref.Digest))
	return r
}

// Locked is one locked skill for Lock: the lock's entry and the
// repository to check it in (absolute; the one skills.yaml resolves it
// to, never the one the lock claims).
type Locked struct {
	Skill lockfile.Skill
	// Repository is the repository as skills.lock and the policy write
	// it (the policy's rule is chosen by it).
	Repository string
	// Abs is Repository made absolute (an oci: path against the project).
	Abs string
}

// LockOptions tune Lock.
type LockOptions struct {
	// Resolver reads the locked manifests once the registry has
	// confirmed it serves them (a HEAD by Client); it may read a
	// digest-checked cache. Nil uses Client.
	Resolver *registry.Client
	// Deep downloads every blob (config and content) and checks its
	// digest. The zero value asks the registry only whether it serves
	// each blob with its locked size.
	Deep bool
	// Parallel bounds the skills checked at once; 0 means 16.
	Parallel int
}

// Lock checks every locked skill, in parallel: the registry still serves
// its manifest digest and every blob the manifest names, and a signature
// satisfies the policy. It returns one report per skill, in order; the
// error is only for a cancelled ctx.
func (t *Trust) Lock(ctx context.Context, skills []Locked, opts LockOptions) ([]*Report, error) {
	resolver := opts.Resolver
	if resolver == nil {
		resolver = t.Client
	}
	limit := opts.Parallel
	if limit <= 0 {
		limit = 16
	}
	reports := make([]*Report, len(skills))
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(limit)
	for i, l := range skills {
		s := l.Skill
		r := &Report{Name: s.Name, Version: s.Version, Repository: l.Repository, Manifest: s.Manifest}
		reports[i] = r
		g.Go(func() error {
			ref, err := registry.ParseReference(l.Abs)
			if err != nil {
				r.Fail(StatusError, "%v", err)
				return nil
			}
			d, err := digest.Parse(s.Manifest)
			if err != nil {
				r.Fail(StatusTampered, "locked manifest %q: %v", s.Manifest, err)
				return nil
			}
			ref = ref.WithDigest(d)
			if _, err := t.Client.Head(gctx, ref); err != nil {
				r.failFetch(err)
				return nil
			}
			res, err := resolver.Resolve(gctx, ref)
			if err != nil {
				r.failFetch(err)
				return nil
			}
			mu.Lock()
			r.Resolved = res
			mu.Unlock()
			if err := t.Client.CheckBlobs(gctx, res, registry.CheckBlobsOptions{Deep: opts.Deep}); errors.Is(err, registry.ErrNotFound) {
				r.Fail(StatusTampered, "the registry serves the manifest %s but not every blob it names: %v", s.Manifest, err)
			} else if err != nil {
				r.failFetch(err)
			}
			t.signature(gctx, r, l.Repository, ref)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return reports, ctx.Err()
}

// signature applies the policy to the manifest ref names, recording the
// signer, provenance and vetter found.
func (t *Trust) signature(ctx context.Context, r *Report, repo string, ref registry.Reference) {
	if t.Verifier == nil {
		return
	}
	r.Policy = t.Verifier.Effective(repo)
	res, err := Check(ctx, t.Client, t.Verifier, repo, ref)
	if res != nil {
		r.Signer, r.VettedBy, r.Vetting = res.Signer, res.VettedBy, res.Vetting
		if res.Provenance != nil {
			r.Provenance = res.Provenance.SourceRepository
			if r.Provenance == "" {
				r.Provenance = res.Provenance.Builder
			}
		}
	}
	var pe *PolicyError
	switch {
	case errors.As(err, &pe) && pe.Policy != "":
		r.Fail(StatusPolicy, "%s (by the %s)", pe.Reason, pe.Policy)
		r.Problems = append(r.Problems, pe.Rejected...)
	case errors.As(err, &pe):
		r.Fail(StatusPolicy, "%s", pe.Reason)
		r.Problems = append(r.Problems, pe.Rejected...)
	case err != nil:
		r.failFetch(err)
	}
}
