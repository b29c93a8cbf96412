package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/registry"
)

// Folder statuses set by Check.
const (
	// StatusMatches: the source serves exactly the folder's files; an
	// install adopts the folder without changing a byte.
	StatusMatches = "matches"
	// StatusDiffers: the folder holds other files than the source
	// serves (edited, or another version); an install would refuse it.
	StatusDiffers = "differs"
	// StatusLink: the folder is a symlink, which skillpm never replaces.
	StatusLink = "link"
)

// Check pulls what an OCI proposal names (Registry/NAME at Version)
// into a temporary folder under tmp, through the client's usual checks,
// and compares each installed folder with it file by file, as an
// install compares before it adopts a folder. It sets each folder's
// Status and reports whether every folder matches. Other kinds are not
// checked (ok is true).
func Check(ctx context.Context, client *registry.Client, root, tmp string, p *Proposal) (ok bool, err error) {
	if p.Kind != KindOCI || len(p.Folders) == 0 {
		return true, nil
	}
	ref, err := registry.ParseReference(p.Entry.Registry + "/" + p.Name)
	if err != nil {
		return false, err
	}
	ref = ref.WithTag(p.Entry.Version)
	dir, err := os.MkdirTemp(tmp, "import-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, p.Name)
	pulled, err := client.Pull(ctx, ref, out, registry.PullOptions{})
	if err != nil {
		return false, fmt.Errorf("check %s against %s: %w", p.Name, ref, err)
	}
	if n := pulled.Name(); n != "" && n != p.Name {
		return false, fmt.Errorf("check %s: %s holds the skill %q: %w", p.Name, ref, n, registry.ErrIntegrity)
	}
	if p.Digest != "" && p.Digest != pulled.Ref.Digest.String() && (pulled.Index == nil || p.Digest != pulled.Index.Digest.String()) {
		p.note("the installer recorded %s, but %s now holds %s: the folders are compared with what it holds now", p.Digest, ref, pulled.Ref.Digest)
	}
	want, err := install.HashTree(out)
	if err != nil {
		return false, err
	}
	ok = true
	for i := range p.Folders {
		f := &p.Folders[i]
		if f.Link != "" {
			f.Status, ok = StatusLink, false
			continue
		}
		got, err := install.HashTree(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			return false, err
		}
		if got.Digest == want.Digest {
			f.Status = StatusMatches
		} else {
			f.Status, ok = StatusDiffers, false
		}
	}
	return ok, nil
}
