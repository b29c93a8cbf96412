package bundle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/manager"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/registry/ociref"
	"github.com/skillpm/skillpm/verify"
)

// Trust returns t made to check every locked skill against the
// signatures and attestations the bundle holds: the referrers of the
// locked digest are read from the bundle whatever repository the lock
// names (a registry, an oci: folder that did not cross the air gap), and
// never from the network, whatever the bundle's index.json claims. The
// policy rule is still chosen by the lock's repository. A locked digest
// the bundle does not hold fails closed, with registry.ErrNotVetted. t's
// client should read no cache (registry.Client.Fresh).
func (s *Source) Trust(t *verify.Trust) manager.Trust {
	return bundleTrust{Trust: t, dir: s.Dir}
}

// bundleTrust is a verify.Trust whose Check reads the bundle; its other
// methods (CheckSource, Vet) read nothing remote.
type bundleTrust struct {
	*verify.Trust
	dir string
}

// Check verifies s's locked manifest with the referrers in the bundle.
func (t bundleTrust) Check(ctx context.Context, s lockfile.Skill, _ string) (string, error) {
	if d, err := digest.Parse(s.Manifest); err == nil && !t.holds(d) {
		return "", fmt.Errorf("%s %s (%s) is not in the bundle; make the bundle again from this skills.lock: %w", s.Name, s.Version, s.Manifest, registry.ErrNotVetted)
	}
	return t.Trust.Check(ctx, s, ociref.LayoutPrefix+t.dir)
}

// holds reports whether the bundle has a blob of digest d.
func (t bundleTrust) holds(d digest.Digest) bool {
	fi, err := os.Lstat(filepath.Join(t.dir, ocispec.ImageBlobsDir, d.Algorithm().String(), d.Encoded()))
	return err == nil && fi.Mode().IsRegular()
}
