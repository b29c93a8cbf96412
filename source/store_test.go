package source_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source"
	"github.com/skillpm/skillpm/source/local"
)

func newStore(t *testing.T) *source.Store {
	return &source.Store{Dir: filepath.Join(t.TempDir(), "sources"), Client: registry.NewClient(registry.Options{})}
}

func skillDir(t *testing.T, name, frontmatterName, version string) string {
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	md := "---\nname: " + frontmatterName + "\ndescription: A skill for the store tests.\nversion: " + version + "\ndepends_on:\n  - helper@^1\n---\n# x\n"
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Packing is reproducible: two stores (two machines) pack the same files
// to the same manifest and content digests, and a pack is cached.
func TestStorePackReproducible(t *testing.T) {
	ctx := context.Background()
	dir := skillDir(t, "dev", "dev", "1.4.0")
	e := source.Entry{Name: "dev", Kind: "local", Location: dir, Repository: "local:dev"}
	k := &local.Kind{}
	cands, err := k.Versions(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	s1, s2 := newStore(t), newStore(t)
	p1, err := s1.Pack(ctx, k, e, cands[0])
	if err != nil {
		t.Fatal(err)
	}
	p2, err := s2.Pack(ctx, k, e, cands[0])
	if err != nil {
		t.Fatal(err)
	}
	if p1.Manifest != p2.Manifest || p1.Content != p2.Content {
		t.Errorf("two packs differ: %s %s vs %s %s", p1.Manifest, p1.Content, p2.Manifest, p2.Content)
	}
	if p1.Version != "1.4.0" || p1.Name != "dev" || len(p1.DependsOn) != 1 {
		t.Errorf("packed = %+v; want dev 1.4.0 (the SKILL.md's version) depending on helper", p1)
	}
	cached, err := s1.Cached(ctx, e, cands[0].Pin, "1.4.0")
	if err != nil || cached == nil || cached.Manifest != p1.Manifest {
		t.Fatalf("Cached = %+v, %v; want the packed copy", cached, err)
	}
	// The same pin repacked as a version (a tag) is that version.
	c := cands[0]
	c.Version = semver.MustParse("2.0.0")
	p3, err := s1.Pack(ctx, k, e, c)
	if err != nil || p3.Version != "2.0.0" {
		t.Fatalf("Pack as 2.0.0 = %+v, %v", p3, err)
	}
}

func TestStorePackRefusesAnotherSkill(t *testing.T) {
	ctx := context.Background()
	dir := skillDir(t, "dev", "other", "1.0.0")
	e := source.Entry{Name: "dev", Kind: "local", Location: dir, Repository: "local:dev"}
	k := &local.Kind{}
	cands, err := k.Versions(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newStore(t).Pack(ctx, k, e, cands[0]); !errors.Is(err, source.ErrNotSkill) {
		t.Errorf("Pack of a folder holding another skill = %v; want ErrNotSkill", err)
	}
}

// Two skills.yaml entries naming one folder share its packed copy (the
// cache is keyed by where a skill comes from); the entry whose name is
// not the skill's is refused, whichever of the two packed first.
func TestStoreSharedCopyKeepsNames(t *testing.T) {
	ctx := context.Background()
	dir := skillDir(t, "dev", "dev", "1.4.0")
	right := source.Entry{Name: "dev", Kind: "local", Location: dir, Repository: "local:dev"}
	wrong := right
	wrong.Name = "other"
	k := &local.Kind{}
	cands, err := k.Versions(ctx, right)
	if err != nil {
		t.Fatal(err)
	}
	s := newStore(t)
	if _, err := s.Pack(ctx, k, right, cands[0]); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Pack(ctx, k, wrong, cands[0]); !errors.Is(err, source.ErrNotSkill) {
		t.Errorf("Pack for %q from the cached copy = %+v, %v; want ErrNotSkill", wrong.Name, p, err)
	}
	if p, err := s.Cached(ctx, wrong, cands[0].Pin, "1.4.0"); !errors.Is(err, source.ErrNotSkill) {
		t.Errorf("Cached for %q = %+v, %v; want ErrNotSkill", wrong.Name, p, err)
	}
}
