package sync

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	gosync "sync"
	"sync/atomic"
	"time"

	"github.com/Masterminds/semver/v3"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"
	"oras.land/oras-go/v2/registry/remote/errcode"

	"github.com/skillpm/skillpm/internal/sigproto"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/skill"
	"github.com/skillpm/skillpm/verify"
)

// Options configure Run.
type Options struct {
	// Config says what to copy where, and the policy. From and To must
	// be set.
	Config *Config
	// Client reads and writes the registries. Give it no mirrors
	// (registry.Client.WithoutMirrors): sync compares the real upstream
	// with the real mirror.
	Client *registry.Client
	// Verifier checks signatures when the policy requires them. nil
	// rejects every version under a signature policy with
	// ErrNoTrustPolicy.
	Verifier SignatureVerifier
	// DryRun vets and plans but writes nothing.
	DryRun bool
	// TempDir holds pulled skills while they are vetted; "" means
	// os.TempDir().
	TempDir string
	// Concurrency bounds how many repositories are synced at once. If
	// less than or equal to 0, a default (currently 4) is used.
	Concurrency int
	// Log, when set, receives one line per version as it is decided.
	Log io.Writer
	// Attester, when set, signs a vetted attestation for each version the
	// policy accepts; it is attached on the mirror before the tag. A
	// version already on the mirror without one is vetted again first.
	// A dry run with Config.Attest set plans attestations without one.
	Attester *verify.Signer
	// AttestKey is the public key of a key-based Attester, for a dry run
	// (which opens no private key) to tell which of the mirror's vetted
	// attestations that key signed. An Attester's own key wins.
	AttestKey crypto.PublicKey
	// Upstream, when set, is where skills come from instead of the
	// registry prefix Config.From: a git repository or a well-known
	// origin (see ParseUpstream).
	Upstream Upstream
	// Sigstore checks the mirror's vetted attestations against
	// AttestKey (sigproto.Helper in skillpm); nil counts none as
	// signed with it.
	Sigstore sigproto.Backend
	// Retries is how many more times a copy that failed on the network
	// (a reset upload, a registry error after the transport's own
	// retries) is attempted; what was copied is kept. If less than 0,
	// none; 0 means a default (currently 3).
	Retries int
}

// Run copies every selected version that passes the policy from
// Config.From to Config.To and reports what it did with each. The
// report is complete even when Run fails: it returns an error wrapping
// the first fault (a registry sentinel, so ErrNetwork for a registry
// that went away) when any version failed, and ErrRejected when none
// failed but some were rejected.
func Run(ctx context.Context, opts Options) (*Report, error) {
	cfg := opts.Config
	if err := cfg.compile(); err != nil {
		return nil, err
	}
	to, err := parsePrefix("to", cfg.To)
	if err != nil {
		return nil, err
	}
	linter, err := skill.NewLinter()
	if err != nil {
		return nil, err
	}
	r := &runner{opts: opts, to: to, vet: &vetter{policy: cfg.Policy, linter: linter, verifier: opts.Verifier}}
	if opts.Upstream != nil {
		rep := &Report{From: opts.Upstream.String(), To: to.Repo(), DryRun: opts.DryRun, Items: []Item{}}
		if err := r.runUpstream(ctx, rep); err != nil {
			return nil, err
		}
		return r.finish(ctx, rep)
	}
	from, err := parsePrefix("from", cfg.From)
	if err != nil {
		return nil, err
	}
	r.from = from
	repos := cfg.Repositories
	if len(repos) == 0 {
		if repos, err = opts.Client.Repositories(ctx, from); err != nil {
			return nil, fmt.Errorf("%w (or list them under 'repositories:' in sync.yaml)", err)
		}
	}
	rep := &Report{From: from.Repo(), To: to.Repo(), DryRun: opts.DryRun, Items: []Item{}}
	n := opts.Concurrency
	if n <= 0 {
		n = 4
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(n)
	var mu gosync.Mutex
	for _, repo := range repos {
		g.Go(func() error {
			items := r.syncRepo(gctx, repo)
			mu.Lock()
			rep.Items = append(rep.Items, items...)
			mu.Unlock()
			return nil
		})
	}
	g.Wait()
	return r.finish(ctx, rep)
}

// finish completes the report of a run.
func (r *runner) finish(ctx context.Context, rep *Report) (*Report, error) {
	rep.Uploaded = Uploaded{Blobs: int(r.blobs.Load()), Manifests: int(r.manifests.Load()), Bytes: r.bytes.Load()}
	rep.finish()
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	return rep, rep.err()
}

func parsePrefix(what, s string) (registry.Reference, error) {
	if s == "" {
		return registry.Reference{}, fmt.Errorf("%w: no %q prefix (pass --%s or set %s: in sync.yaml)", ErrConfig, what, what, what)
	}
	r, err := registry.ParseReference(s)
	if err != nil {
		return r, fmt.Errorf("%w: %s: %v", ErrConfig, what, err)
	}
	if r.Tag != "" || r.Digest != "" || r.Range != "" {
		return r, fmt.Errorf("%w: %s %q: want a prefix without tag, digest or range", ErrConfig, what, s)
	}
	return r, nil
}

// runner holds what one Run shares between repositories.
type runner struct {
	opts     Options
	from, to registry.Reference
	vet      *vetter

	blobs, manifests atomic.Int64
	bytes            atomic.Int64
	// down is set once a copy has failed on the network after its
	// retries: the rest of the run fails fast instead of waiting on a
	// registry that is gone.
	down atomic.Pointer[error]
	// attached holds the digests of the vetted attestations pushed, so
	// that a retried copy counts its upload once.
	attached gosync.Map
}

// syncRepo syncs the selected versions of one repository, lowest first.
func (r *runner) syncRepo(ctx context.Context, repo string) []Item {
	fail := func(err error) []Item {
		return []Item{{Repository: repo, Action: ActionFailed, Reason: err.Error(), err: err}}
	}
	srcRef, err := registry.Join(r.from, repo)
	if err != nil {
		return fail(err)
	}
	dstRef, err := registry.Join(r.to, repo)
	if err != nil {
		return fail(err)
	}
	src, err := r.opts.Client.Target(ctx, srcRef, false)
	if err != nil {
		return fail(err)
	}
	tags, err := selectedTags(ctx, src, r.opts.Config, repo)
	if err != nil {
		return fail(fmt.Errorf("list tags of %s: %w", srcRef.Repo(), err))
	}
	if len(tags) == 0 {
		return nil
	}
	// A layout folder that does not exist yet is created by the first
	// copy, so that nothing is left behind for rejected versions.
	m := &dstRepo{ref: dstRef, client: r.opts.Client}
	m.t, err = r.opts.Client.Target(ctx, dstRef, false)
	if err != nil && !errors.Is(err, registry.ErrNotFound) {
		return fail(err)
	}
	var items []Item
	for _, t := range tags {
		it := r.syncTag(ctx, src, m, srcRef, repo, t, srcRef.Repo())
		if r.opts.Log != nil {
			fmt.Fprintln(r.opts.Log, it.String(r.opts.DryRun))
		}
		items = append(items, it)
		if ctx.Err() != nil {
			break
		}
	}
	return items
}

type versionTag struct {
	tag string
	v   *semver.Version
}

// selectedTags lists the version tags of src that the rules select,
// lowest version first.
func selectedTags(ctx context.Context, src registry.Target, cfg *Config, repo string) ([]versionTag, error) {
	var out []versionTag
	err := src.Tags(ctx, "", func(tags []string) error {
		for _, t := range tags {
			if v, ok := ociref.VersionFromTag(t); ok && cfg.Selected(repo, t, v) {
				out = append(out, versionTag{t, v})
			}
		}
		return nil
	})
	if err != nil {
		return nil, registry.Classify(err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].v.LessThan(out[j].v) })
	return out, nil
}

// syncTag decides and, unless dry-running, does the copy of one tag;
// upstream names where it came from in the vetted attestation.
func (r *runner) syncTag(ctx context.Context, src registry.Target, m *dstRepo, srcRef registry.Reference, repo string, t versionTag, upstream string) Item {
	it := Item{Repository: repo, Tag: t.tag, Version: t.v.Original()}
	failed := func(err error) Item { return it.failed(err) }
	if down := r.down.Load(); down != nil {
		return failed(fmt.Errorf("not attempted after an earlier registry failure: %w", *down))
	}
	desc, err := src.Resolve(ctx, t.tag)
	if err != nil {
		return failed(fmt.Errorf("resolve %s: %w", srcRef.WithTag(t.tag), registry.Classify(err)))
	}
	it.Digest = desc.Digest.String()
	listed, err := referrers(ctx, src, desc)
	if err != nil {
		return failed(fmt.Errorf("list referrers of %s: %w", srcRef.WithDigest(desc.Digest), err))
	}
	refs, left := keepReferrers(listed, maxReferrersCopied)
	it.Referrers, it.ReferrersLeftOut = len(refs), left

	if dst := m.t; dst != nil {
		have, err := dst.Resolve(ctx, t.tag)
		switch err = registry.Classify(err); {
		case err == nil && have.Digest != desc.Digest:
			it.Action = ActionRejected
			it.Check = "digest"
			it.Reason = fmt.Sprintf("upstream moved published tag %s from %s (on the mirror) to %s; a published version must not change", t.tag, have.Digest, desc.Digest)
			return it
		case err == nil:
			return r.syncPresent(ctx, src, dst, m, srcRef, desc, t.tag, listed, it, upstream)
		case !errors.Is(err, registry.ErrNotFound):
			return failed(fmt.Errorf("resolve %s on the mirror: %w", t.tag, err))
		}
	}

	vd, rej, err := r.vetVersion(ctx, src, srcRef.WithDigest(desc.Digest), desc, refs)
	if err != nil {
		return failed(err)
	}
	if rej != nil {
		it.Action, it.Check, it.Reason, it.Findings = ActionRejected, rej.Check, rej.Reason, rej.Findings
		return it
	}
	it.Signer, it.Audit = vd.signer, vd.audit
	if r.opts.DryRun {
		it.Action, it.Attested = ActionPlanned, r.attesting()
		return it
	}
	var att *registry.Referrer
	if r.attesting() {
		if att, err = r.attestation(ctx, upstream, m.ref, desc, vd); err != nil {
			return failed(err)
		}
	}
	dst, err := m.open(ctx)
	if err != nil {
		return failed(err)
	}
	deep, err := r.copy(ctx, src, dst, desc, t.tag, refs, att)
	it.ReferrersLeftOut += deep
	if err != nil {
		return failed(err)
	}
	it.Action, it.Attested = ActionCopied, att != nil
	return it
}

// attestKey is the vetting key's public key, or nil when keyless or not
// known.
func (r *runner) attestKey() crypto.PublicKey {
	if r.opts.Attester != nil {
		return r.opts.Attester.PublicKey()
	}
	return r.opts.AttestKey
}

// attesting reports whether the run adds vetted attestations.
func (r *runner) attesting() bool {
	return r.opts.Attester != nil || (r.opts.DryRun && r.opts.Config.Attest != nil)
}

// attestation signs the mirror's vetted statement about desc. It is
// made once per version, so that a retried copy attaches the same bytes.
func (r *runner) attestation(ctx context.Context, upstream string, dstRef registry.Reference, desc ocispec.Descriptor, vd verdict) (*registry.Referrer, error) {
	v := verify.Vetting{
		Upstream: upstream,
		Mirror:   dstRef.Repo(),
		Checks:   r.opts.Config.Policy.Checks(),
		Signer:   vd.signer,
		Audit:    vd.audit,
		VettedAt: time.Now().UTC().Truncate(time.Second),
	}
	if v.Checks == nil {
		v.Checks = []string{}
	}
	a, err := r.opts.Attester.Attest(ctx, dstRef.Repo(), desc.Digest, verify.PredicateVetted, v)
	if err != nil {
		return nil, fmt.Errorf("sign the vetted attestation of %s: %w", desc.Digest, err)
	}
	ref := a.Referrer(v.VettedAt)
	return &ref, nil
}

// failed is it, failed with err.
func (it Item) failed(err error) Item {
	it.Action, it.Reason, it.err = ActionFailed, err.Error(), err
	return it
}

// syncPresent completes a version the mirror already has: the upstream
// referrers it lacks, of those listed, and, when attesting, the mirror's
// own vetted attestation (vetting the version again first). The mirror
// gets no more referrers once it holds maxReferrersCopied: an upstream
// listing others each run must not grow its list run after run.
func (r *runner) syncPresent(ctx context.Context, src, dst registry.Target, m *dstRepo, srcRef registry.Reference, desc ocispec.Descriptor, tag string, listed []ocispec.Descriptor, it Item, upstream string) Item {
	failed := func(err error) Item { return it.failed(err) }
	refs, _ := keepReferrers(listed, maxReferrersCopied)
	var have []ocispec.Descriptor // the mirror's referrers, listed once
	if len(refs) > 0 || r.attesting() {
		var err error
		if have, err = referrers(ctx, dst, desc); err != nil {
			return failed(fmt.Errorf("list referrers on the mirror: %w", err))
		}
	}
	lacking := missing(have, refs)
	if room := max(maxReferrersCopied-len(have), 0); len(lacking) > room {
		refs, lacking = missing(lacking[room:], refs), lacking[:room]
	}
	it.Referrers = len(refs)
	it.ReferrersLeftOut = len(missing(slices.Concat(have, lacking), listed))
	unattested := false
	if r.attesting() {
		has, err := hasVetted(ctx, r.opts.Sigstore, dst, desc, have, listed, r.attestKey())
		if err != nil {
			return failed(err)
		}
		unattested = !has
	}
	if len(lacking) == 0 && !unattested {
		it.Action, it.Reason = ActionSkipped, "up to date"
		return it
	}
	var why []string
	var vd verdict
	if len(lacking) > 0 {
		// Vetted when it was copied; only referrers are missing.
		why = append(why, fmt.Sprintf("%d missing referrers", len(lacking)))
	}
	if unattested {
		// Copied before this mirror attested (or attested by another
		// key): vet it again before vouching for it.
		var rej *Rejection
		var err error
		if vd, rej, err = r.vetVersion(ctx, src, srcRef.WithDigest(desc.Digest), desc, refs); err != nil {
			return failed(err)
		}
		if rej != nil {
			it.Action, it.Check, it.Findings = ActionRejected, rej.Check, rej.Findings
			it.Reason = "on the mirror without a vetted attestation, and now fails vetting: " + rej.Reason
			return it
		}
		it.Signer, it.Audit = vd.signer, vd.audit
		why = append(why, "vetted attestation added")
	}
	it.Action, it.Reason = ActionCopied, strings.Join(why, "; ")
	if r.opts.DryRun {
		it.Action, it.Attested = ActionPlanned, unattested
		return it
	}
	var att *registry.Referrer
	if unattested {
		var err error
		if att, err = r.attestation(ctx, upstream, m.ref, desc, vd); err != nil {
			return failed(err)
		}
	}
	deep, err := r.copy(ctx, src, dst, desc, tag, refs, att)
	it.ReferrersLeftOut += deep
	if err != nil {
		return failed(err)
	}
	it.Attested = unattested
	return it
}

// vetVersion pulls the version into a temporary folder and vets it. A
// version that cannot be read as a skill, or does not match its digests,
// is rejected; a registry fault is an error.
func (r *runner) vetVersion(ctx context.Context, src registry.Target, ref registry.Reference, desc ocispec.Descriptor, refs []ocispec.Descriptor) (verdict, *Rejection, error) {
	tmp, err := os.MkdirTemp(r.opts.TempDir, "skillpm-sync-")
	if err != nil {
		return verdict{}, nil, err
	}
	defer os.RemoveAll(tmp)
	var dir string
	res, err := r.opts.Client.Resolve(ctx, ref)
	if err == nil {
		// The folder is named after the skill, as lint expects.
		name := filepath.Base(filepath.Clean("/" + res.Name()))
		if name == "/" || name == "." {
			name = "skill"
		}
		dir = filepath.Join(tmp, name)
		_, err = r.opts.Client.Extract(ctx, res, dir, registry.PullOptions{})
	}
	if err == nil {
		var rej *Rejection
		if rej, err = checkIndex(ctx, src, res); rej != nil {
			return verdict{}, rej, nil
		}
	}
	if err != nil {
		for _, k := range []error{registry.ErrIntegrity, registry.ErrUnsafeArchive, registry.ErrNotSkill} {
			if errors.Is(err, k) {
				return verdict{}, &Rejection{Check: "content", Reason: err.Error()}, nil
			}
		}
		return verdict{}, nil, err
	}
	c := &Candidate{Repo: ref, Manifest: desc, Referrers: refs, Dir: dir, Config: res.Config}
	c.Skill, _ = skill.Load(dir) // lint reports a broken skill
	return r.vet.vet(ctx, src, c)
}

// copy copies desc with its referrers refs (and theirs), then tags it:
// blobs before the manifest that lists them, the manifest before its
// referrers, the tag last. A failure anywhere leaves no tag pointing at
// missing content. Network failures are retried with backoff; each
// attempt skips what the previous ones copied.
// The mirror's vetted attestation att, when set, is attached before the
// tag, so that no client requiring it ever sees the tag without it.
// It returns how many referrers it left out of those (see copyGraph).
func (r *runner) copy(ctx context.Context, src, dst registry.Target, desc ocispec.Descriptor, tag string, refs []ocispec.Descriptor, att *registry.Referrer) (int, error) {
	retries := r.opts.Retries
	if retries == 0 {
		retries = 3
	}
	wait := 200 * time.Millisecond
	for attempt := 0; ; attempt++ {
		left, err := r.copyOnce(ctx, src, dst, desc, tag, refs, att)
		if err == nil || !errors.Is(err, registry.ErrNetwork) {
			return left, err
		}
		if attempt >= retries || !failedUpload(err) {
			r.down.CompareAndSwap(nil, &err)
			return left, err
		}
		select {
		case <-ctx.Done():
			return left, err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (r *runner) copyOnce(ctx context.Context, src, dst registry.Target, desc ocispec.Descriptor, tag string, refs []ocispec.Descriptor, att *registry.Referrer) (int, error) {
	opts := r.copyOptions()
	refs, left, err := copyGraph(ctx, src, dst, desc, refs, opts)
	if err != nil {
		return left, fmt.Errorf("copy %s: %w", desc.Digest, registry.Classify(err))
	}
	// A referrer pushed by an earlier run whose referrers-index update
	// failed exists but is not listed: push it again to list it.
	missing, err := missingReferrers(ctx, dst, desc, refs)
	if err != nil {
		return left, err
	}
	for _, m := range missing {
		if err := repush(ctx, src, dst, m); err != nil {
			return left, fmt.Errorf("copy referrer %s: %w", m.Digest, registry.Classify(err))
		}
	}
	if att != nil {
		// Through dst itself, so that a layout's index.json, which dst
		// writes when tagging, lists it. The same bytes make the same
		// referrer, so a retry pushes nothing twice.
		m, err := registry.AttachTo(ctx, dst, desc.Digest.String(), *att)
		if err != nil {
			return left, fmt.Errorf("attach the vetted attestation: %w", err)
		}
		if _, again := r.attached.LoadOrStore(m.Digest, true); !again {
			r.blobs.Add(1)
			r.manifests.Add(1)
			r.bytes.Add(int64(len(att.Blob)) + m.Size)
		}
	}
	if err := dst.Tag(ctx, desc, tag); err != nil {
		return left, fmt.Errorf("tag %s: %w", tag, registry.Classify(err))
	}
	return left, nil
}

// failedUpload reports whether err is an upload that failed: the HTTP
// transport retries other requests itself (with backoff), but not an
// upload whose streamed body cannot be rewound.
func failedUpload(err error) bool {
	upload := func(m string) bool {
		m = strings.ToUpper(m)
		return m == http.MethodPut || m == http.MethodPost || m == http.MethodPatch
	}
	var ue *url.Error
	if errors.As(err, &ue) && upload(ue.Op) {
		return true
	}
	var er *errcode.ErrorResponse
	return errors.As(err, &er) && upload(er.Method)
}

// dstRepo is a mirror repository, opened (and for a layout, created)
// when first written.
type dstRepo struct {
	ref    registry.Reference
	client *registry.Client
	t      registry.Target
}

func (m *dstRepo) open(ctx context.Context) (registry.Target, error) {
	if m.t != nil {
		return m.t, nil
	}
	t, err := m.client.Target(ctx, m.ref, true)
	if err != nil {
		return nil, err
	}
	m.t = t
	return t, nil
}

// Uploaded counts what a run pushed.
type Uploaded struct {
	Blobs     int   `json:"blobs"`
	Manifests int   `json:"manifests"`
	Bytes     int64 `json:"bytes"`
}
