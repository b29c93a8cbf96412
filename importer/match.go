package importer

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/skillpm/skillpm/registry"
)

// MaxMatchVersions bounds the versions Match compares, newest first.
const MaxMatchVersions = 20

// Match looks for the source of a hand-copied skill folder in the
// repository prefix/NAME: the folder is packed as 'skillpm publish'
// packs it (reproducibly) and its content layer digest compared with
// the content layer of each published version, newest first, reading
// only manifests. On a match the proposal becomes that OCI version. It
// reports whether it matched; a repository that does not exist is no
// match.
func Match(ctx context.Context, client *registry.Client, root, prefix string, p *Proposal) (bool, error) {
	if p.Kind != KindNone || prefix == "" || len(p.Folders) == 0 || p.Folders[0].Link != "" {
		return false, nil
	}
	ref, err := registry.ParseReference(prefix + "/" + p.Name)
	if err != nil {
		return false, nil
	}
	pkg, err := registry.Pack(ctx, filepath.Join(root, filepath.FromSlash(p.Folders[0].Path)), registry.PackOptions{})
	if err != nil {
		p.note("not packable, so not matched against %s: %v", ref.Repo(), err)
		return false, nil
	}
	layer := pkg.Layer.Digest
	pkg.Close()
	vs, err := client.Versions(ctx, ref)
	if errors.Is(err, registry.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("match %s: %w", p.Name, err)
	}
	for i, n := len(vs)-1, 0; i >= 0 && n < MaxMatchVersions; i, n = i-1, n+1 {
		res, err := client.Resolve(ctx, ref.WithTag(vs[i].Original()))
		if err != nil {
			return false, fmt.Errorf("match %s: %w", p.Name, err)
		}
		if len(res.Layout.Layers) == 1 && res.Layout.Layers[0].Digest == layer && res.Name() == p.Name {
			p.Kind, p.Pinned = KindOCI, true
			p.Entry = Entry{Registry: prefix, Version: vs[i].Original()}
			p.Notes = []string{fmt.Sprintf("hand-copied, and holds exactly %s %s (same content layer %s)", ref.Repo(), vs[i].Original(), layer)}
			return true, nil
		}
	}
	p.note("no version of %s holds these files", ref.Repo())
	return false, nil
}
