// Package local is the local-folder kind of source.Source: a skill folder
// inside the project (npm's file:), for monorepos and development. Its
// pin is the digest of the folder's reproducible content layer, so the
// lock records exactly which files were installed.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
)

// Kind reads local folders. The zero value is usable.
type Kind struct {
	// Limits bound the folder as they bound an OCI layer.
	Limits registry.Limits
}

var _ source.Source = (*Kind)(nil)

// Versions returns the folder e.Location as it is now: one tracked
// candidate pinned to its content digest.
func (k *Kind) Versions(ctx context.Context, e source.Entry) ([]source.Candidate, error) {
	if err := check(e); err != nil {
		return nil, err
	}
	d, err := registry.WriteLayer(ctx, io.Discard, e.Location, "")
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", e.Name, e.Location, err)
	}
	return []source.Candidate{{Pin: lockfile.Source{Digest: d.Digest.String()}, Tracked: true}}, nil
}

func check(e source.Entry) error {
	fi, err := os.Stat(e.Location)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: the folder %s does not exist: %w; fix local in skills.yaml", e.Name, e.Location, source.ErrNotFound)
	case err != nil:
		return fmt.Errorf("%s: %w", e.Name, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is not a folder: %w; local names a skill's folder", e.Name, e.Location, source.ErrNotSkill)
	}
	if e.Root != "" {
		// The path is written inside the project; a link on the way
		// must not take it out (to ~/.ssh, another checkout).
		real, err := filepath.EvalSymlinks(e.Location)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		root, err := filepath.EvalSymlinks(e.Root)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		if rel, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(rel) && rel != "." {
			return fmt.Errorf("%s: %s is a link to %s, outside the project: %w; local names a folder inside the project (copy the skill in, or install it from a registry or git)", e.Name, e.Location, real, source.ErrNotSkill)
		}
	}
	if _, err := os.Stat(filepath.Join(e.Location, "SKILL.md")); err != nil {
		return fmt.Errorf("%s: %s holds no SKILL.md: %w; local names a skill's folder (create one with 'skillpm init')", e.Name, e.Location, source.ErrNotSkill)
	}
	return nil
}

// Export writes the folder into dir through registry.Unpack, checking
// that its content still has the pinned digest.
func (k *Kind) Export(ctx context.Context, e source.Entry, pin lockfile.Source, dir string) error {
	if err := check(e); err != nil {
		return err
	}
	want, err := digest.Parse(pin.Digest)
	if err != nil {
		return fmt.Errorf("%s: pinned digest %q: %w", e.Name, pin.Digest, err)
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := registry.WriteLayer(ctx, pw, e.Location, "")
		pw.CloseWithError(err)
	}()
	_, err = registry.Unpack(ctx, pr, dir, registry.UnpackOptions{Limits: k.Limits, Digest: want})
	pr.CloseWithError(errors.New("export ended"))
	if errors.Is(err, registry.ErrIntegrity) {
		return fmt.Errorf("%s: the folder %s changed since skills.lock was written: %w; run 'skillpm install' to lock what it holds now", e.Name, e.Location, source.ErrPinMismatch)
	}
	if err != nil {
		return fmt.Errorf("%s: export %s: %w", e.Name, e.Location, err)
	}
	return nil
}
