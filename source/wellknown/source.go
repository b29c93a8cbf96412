package wellknown

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/source"
)

// Kind is the well-known kind of source.Source (and source.Lister): the
// skills an origin's discovery index lists. A skill's candidate is its
// index entry as served now, pinned to the artifact's sha256 digest; its
// version is the entry's version when that is semver, else the candidate
// is unversioned and tracked, like a local folder. An origin's index is
// read once per Kind, so fifty skills of one origin cost one request.
type Kind struct {
	// Client reads indexes and artifacts; its CacheDir makes a warm
	// export need no network.
	Client *Client

	mu      sync.Mutex
	indexes map[string]*indexOnce
}

type indexOnce struct {
	once sync.Once
	idx  *Index
	err  error
}

var (
	_ source.Source = (*Kind)(nil)
	_ source.Lister = (*Kind)(nil)
)

// index reads origin's index once per Kind.
func (k *Kind) index(ctx context.Context, origin string) (*Index, error) {
	k.mu.Lock()
	if k.indexes == nil {
		k.indexes = map[string]*indexOnce{}
	}
	o := k.indexes[origin]
	if o == nil {
		o = &indexOnce{}
		k.indexes[origin] = o
	}
	k.mu.Unlock()
	o.once.Do(func() { o.idx, o.err = k.client().Index(ctx, origin) })
	return o.idx, o.err
}

func (k *Kind) client() *Client {
	if k.Client == nil {
		k.Client = &Client{}
	}
	return k.Client
}

// notFound adds source.ErrNotFound to an index or entry that does not
// exist, so that the resolver reports it as a missing skill.
func notFound(err error) error {
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrUnknownSkill) {
		return fmt.Errorf("%w (%w)", err, source.ErrNotFound)
	}
	return err
}

// entry is the index entry of e.Name at e.Location.
func (k *Kind) entry(ctx context.Context, e source.Entry) (Entry, error) {
	idx, err := k.index(ctx, e.Location)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: well-known origin %s: %w", e.Name, e.Location, notFound(err))
	}
	ent, err := idx.Find(e.Name)
	if err != nil {
		return Entry{}, fmt.Errorf("%s: %w; fix the name, or wellknown in skills.yaml", e.Name, notFound(err))
	}
	return ent, nil
}

// Versions returns the one candidate the index offers for e.Name: its
// artifact digest as the pin, and its version when that is semver.
func (k *Kind) Versions(ctx context.Context, e source.Entry) ([]source.Candidate, error) {
	ent, err := k.entry(ctx, e)
	if err != nil {
		return nil, err
	}
	c := source.Candidate{Pin: lockfile.Source{Digest: ent.Digest, URL: RelURL(e.Location, ent.URL)}}
	if v, err := semver.StrictNewVersion(strings.TrimPrefix(ent.Version, "v")); err == nil && ent.Version != "" {
		c.Version = v
	} else {
		c.Tracked = true // no version: whatever the origin serves now, like a folder
	}
	return []source.Candidate{c}, nil
}

// Export writes the artifact pin.Digest names into dir. An artifact of
// that digest in the client's cache is used without any network;
// otherwise the index must still list e.Name with that digest (an entry
// that now has another digest, or is gone, fails with an error wrapping
// source.ErrPinMismatch) and the download must match it before anything
// is extracted.
func (k *Kind) Export(ctx context.Context, e source.Entry, pin lockfile.Source, dir string) error {
	if !digestRE().MatchString(pin.Digest) {
		return fmt.Errorf("%s: skills.lock pins %q for %s, not a sha256 digest: %w", e.Name, trunc(pin.Digest), e.Repository, lockfile.ErrInvalid)
	}
	c := k.client()
	if typ := c.cachedType(pin.Digest); typ != "" {
		ent := Entry{Name: e.Name, Type: typ, URL: e.Location, Digest: pin.Digest}
		return c.Export(ctx, ent, dir)
	}
	idx, err := k.index(ctx, e.Location)
	if err != nil {
		return fmt.Errorf("%s: well-known origin %s: %w", e.Name, e.Location, err)
	}
	ent, err := idx.Find(e.Name)
	if err != nil {
		return fmt.Errorf("%s: %s no longer lists the skill that skills.lock pins (%s): %w: %w; check the origin, then run 'skillpm update %s' or remove the skill",
			e.Name, e.Location, pin.Digest, err, source.ErrPinMismatch, e.Name)
	}
	if ent.Digest != pin.Digest {
		return fmt.Errorf("%s: %s now serves %s with digest %s, but skills.lock pins %s: the artifact changed: %w; check the change, then run 'skillpm update %s'",
			e.Name, e.Location, redact(ent.URL), ent.Digest, pin.Digest, source.ErrPinMismatch, e.Name)
	}
	// A lock that records where the artifact was (not one written before
	// the URL was) must find it there still.
	if pin.URL != "" && AbsURL(e.Location, pin.URL) != ent.URL {
		return fmt.Errorf("%s: %s now lists the artifact %s at %s, but skills.lock says it came from %s: %w; check the change, then run 'skillpm update %s'",
			e.Name, e.Location, pin.Digest, redact(ent.URL), redact(AbsURL(e.Location, pin.URL)), source.ErrPinMismatch, e.Name)
	}
	return c.Export(ctx, ent, dir)
}

// RelURL is an artifact's URL as skills.lock records it: relative to
// origin when it lies under it, else as it is.
func RelURL(origin, artifact string) string {
	if rest, ok := strings.CutPrefix(artifact, strings.TrimSuffix(origin, "/")+"/"); ok && rest != "" {
		return rest
	}
	return artifact
}

// AbsURL is the artifact URL a lock records (RelURL) made absolute again.
func AbsURL(origin, recorded string) string {
	if strings.Contains(recorded, "://") {
		return recorded
	}
	return strings.TrimSuffix(origin, "/") + "/" + recorded
}

// Skills lists the skills the index of e.Location holds, by name
// (an index has no folders: each name stands for its own).
func (k *Kind) Skills(ctx context.Context, e source.Entry) ([]string, error) {
	idx, err := k.index(ctx, e.Location)
	if err != nil {
		return nil, fmt.Errorf("well-known origin %s: %w", e.Location, notFound(err))
	}
	names := make([]string, 0, len(idx.Skills))
	for _, s := range idx.Skills {
		names = append(names, s.Name)
	}
	return names, nil
}

// cachedType returns the entry type of the verified artifact of digest
// d in the cache ("" when it is not there): an archive starts with the
// gzip, zip or tar magic, a SKILL.md with its frontmatter.
func (c *Client) cachedType(d string) string {
	if c.CacheDir == "" || !digestRE().MatchString(d) {
		return ""
	}
	hexsum := strings.TrimPrefix(d, "sha256:")
	p := filepath.Join(c.CacheDir, "sha256", hexsum)
	if ok, err := fileHas(p, hexsum); err != nil || !ok {
		return ""
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	var head [262]byte
	n, _ := io.ReadFull(f, head[:])
	switch m := string(head[:n]); {
	case strings.HasPrefix(m, "\x1f\x8b"), strings.HasPrefix(m, "PK\x03\x04"), strings.HasPrefix(m, "PK\x05\x06"),
		n == len(head) && m[257:] == "ustar":
		return TypeArchive
	default:
		return TypeSkillMD
	}
}
