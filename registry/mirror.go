package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2"
	"oras.land/oras-go/v2/content"

	"github.com/skillpm/skillpm/registry/ociref"
)

// ErrNotVetted: a repository under a vetted mirror scope is not (or not
// at that version) in any of its mirrors. Vetted scopes never fall back
// to the upstream registry.
var ErrNotVetted = errors.New("not in the vetted mirror")

// MirrorsFor returns the repositories ref's repository is read from, in
// order, and whether the scope is vetted. It returns nil for a layout
// or a repository that no mirror covers. Prefixes and ref are compared
// as ociref.CanonicalPrefix writes them, as trust policy prefixes are, so no
// spelling of the upstream host slips past a vetted scope. The longest
// matching prefix wins.
func MirrorsFor(mirrors []ociref.Mirror, ref Reference) ([]Reference, bool) {
	if ref.IsLayout() {
		return nil, false
	}
	repo := ociref.CanonicalPrefix(ref.Registry + "/" + ref.Repository)
	best, bestPrefix := -1, ""
	for i, m := range mirrors {
		p := ociref.CanonicalPrefix(m.Prefix)
		if (repo == p || strings.HasPrefix(repo, p+"/")) && (best < 0 || len(p) > len(bestPrefix)) {
			best, bestPrefix = i, p
		}
	}
	if best < 0 {
		return nil, false
	}
	m := mirrors[best]
	rest := strings.TrimPrefix(repo, bestPrefix)
	var out []Reference
	for _, l := range m.Locations {
		r, err := ParseReference(strings.TrimRight(l, "/") + rest)
		if err != nil {
			continue // Validate reports these
		}
		r.Tag, r.Digest, r.Range = ref.Tag, ref.Digest, ref.Range
		out = append(out, r)
	}
	return out, m.Vetted
}

// openMirrored returns a target that reads ref's repository from its
// mirrors, or ok false when no mirror covers it.
func (c *Client) openMirrored(ctx context.Context, ref Reference) (target, bool, error) {
	refs, vetted := MirrorsFor(c.opts.Mirrors, ref)
	if refs == nil {
		return nil, false, nil
	}
	mt := &mirrorTarget{upstream: ref.Repo(), vetted: vetted}
	for _, r := range refs {
		t, err := c.openDirect(ctx, r, false)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				continue // a layout folder without this repository
			}
			return nil, true, err
		}
		mt.targets = append(mt.targets, t)
		mt.names = append(mt.names, r.Repo())
	}
	if !vetted {
		t, err := c.openDirect(ctx, ref, false)
		if err != nil {
			return nil, true, err
		}
		mt.targets = append(mt.targets, t)
		mt.names = append(mt.names, ref.Repo())
	}
	return mt, true, nil
}

// mirrorTarget reads from the first of its targets that has what is
// asked for. It refuses writes: publishing goes to the upstream.
type mirrorTarget struct {
	upstream string
	vetted   bool
	targets  []target
	names    []string
}

// fallThrough reports whether a failure on one location lets the next
// one be tried.
func fallThrough(err error) bool {
	err = classify(err)
	return errors.Is(err, ErrNotFound) || errors.Is(err, ErrNetwork) || errors.Is(err, ErrUnauthorized)
}

// try runs fn against each location in turn.
func try[T any](m *mirrorTarget, what string, fn func(t target) (T, error)) (T, error) {
	var zero T
	var errs []string
	for i, t := range m.targets {
		v, err := fn(t)
		if err == nil {
			return v, nil
		}
		if !fallThrough(err) {
			return zero, err
		}
		errs = append(errs, fmt.Sprintf("%s: %v", m.names[i], classify(err)))
		if i == len(m.targets)-1 && !m.vetted {
			return zero, err // upstream's own error, as without mirrors
		}
	}
	if len(errs) == 0 {
		errs = append(errs, "no mirror location holds this repository")
	}
	return zero, fmt.Errorf("%s %s: %w (vetted scopes never fall back to upstream): %s", what, m.upstream, ErrNotVetted, strings.Join(errs, "; "))
}

func (m *mirrorTarget) Resolve(ctx context.Context, reference string) (ocispec.Descriptor, error) {
	return try(m, "resolve "+reference+" of", func(t target) (ocispec.Descriptor, error) { return t.Resolve(ctx, reference) })
}

func (m *mirrorTarget) Fetch(ctx context.Context, desc ocispec.Descriptor) (io.ReadCloser, error) {
	return try(m, "fetch "+desc.Digest.String()+" of", func(t target) (io.ReadCloser, error) { return t.Fetch(ctx, desc) })
}

func (m *mirrorTarget) Exists(ctx context.Context, desc ocispec.Descriptor) (bool, error) {
	for _, t := range m.targets {
		if ok, err := t.Exists(ctx, desc); err == nil && ok {
			return true, nil
		}
	}
	return false, nil
}

func (m *mirrorTarget) Tags(ctx context.Context, last string, fn func(tags []string) error) error {
	_, err := try(m, "list tags of", func(t target) (struct{}, error) {
		var tags []string
		if err := t.Tags(ctx, last, func(page []string) error { tags = append(tags, page...); return nil }); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, fn(tags)
	})
	return err
}

// Predecessors lists referrers from the first location that can.
func (m *mirrorTarget) Predecessors(ctx context.Context, node ocispec.Descriptor) ([]ocispec.Descriptor, error) {
	for _, t := range m.targets {
		pf, ok := t.(content.PredecessorFinder)
		if !ok {
			continue
		}
		if ok, _ := t.Exists(ctx, node); !ok {
			continue
		}
		return pf.Predecessors(ctx, node)
	}
	return nil, nil
}

var errMirrorReadOnly = errors.New("mirrored repositories are read through their mirrors; publish to the upstream with its own name")

func (m *mirrorTarget) Push(context.Context, ocispec.Descriptor, io.Reader) error {
	return errMirrorReadOnly
}

func (m *mirrorTarget) Tag(context.Context, ocispec.Descriptor, string) error {
	return errMirrorReadOnly
}

var _ oras.Target = (*mirrorTarget)(nil)

// WithoutMirrors returns a client like c that reads every repository
// where its name says, as sync must: it compares the upstream with the
// mirror.
func (c *Client) WithoutMirrors() *Client {
	c2 := *c
	c2.opts.Mirrors = nil
	return &c2
}

// WithMirrors returns a client like c that also reads through ms, which
// take precedence over c's own mirrors for the same prefix.
func (c *Client) WithMirrors(ms []ociref.Mirror) *Client {
	c2 := *c
	c2.opts.Mirrors = append(append([]ociref.Mirror(nil), ms...), c.opts.Mirrors...)
	return &c2
}
