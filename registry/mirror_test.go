package registry

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry/ociref"
)

func TestMirrorsFor(t *testing.T) {
	mirrors := []ociref.Mirror{
		{Prefix: "ghcr.io/acme/skills", Locations: []string{"registry.internal/acme", "oci:/srv/skills"}, Vetted: true},
		{Prefix: "ghcr.io/acme/skills/beta", Locations: []string{"beta.internal/x"}},
	}
	for _, tc := range []struct {
		ref    string
		want   []string
		vetted bool
	}{
		{"ghcr.io/acme/skills/pdf:1.0.0", []string{"registry.internal/acme/pdf:1.0.0", "oci:/srv/skills/pdf:1.0.0"}, true},
		{"ghcr.io/acme/skills/team/pdf@sha256:" + strings.Repeat("a", 64), []string{"registry.internal/acme/team/pdf@sha256:" + strings.Repeat("a", 64), "oci:/srv/skills/team/pdf@sha256:" + strings.Repeat("a", 64)}, true},
		{"ghcr.io/acme/skills/beta/pdf", []string{"beta.internal/x/pdf"}, false},
		{"ghcr.io/acme/skillsx/pdf", nil, false},
		{"ghcr.io/other/pdf", nil, false},
		{"oci:./registry/pdf", nil, false},
	} {
		ref, err := ParseReference(tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		refs, vetted := MirrorsFor(mirrors, ref)
		var got []string
		for _, r := range refs {
			got = append(got, r.String())
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") || vetted != tc.vetted {
			t.Errorf("MirrorsFor(%s): got %v vetted=%v, want %v vetted=%v", tc.ref, got, vetted, tc.want, tc.vetted)
		}
	}
}

// A vetted mirror written with any spelling of its upstream covers that
// upstream however the reference spells it: were it missed, reads would
// go to the upstream (fail open).
func TestMirrorsForSpellings(t *testing.T) {
	for _, prefix := range []string{
		"localhost:5000/skills",
		"Localhost:5000/skills",
		"LOCALHOST:5000/skills/",
		"localhost:5000//skills",
		"http://localhost:5000/skills",
		"https://LocalHost:5000/Skills//",
	} {
		for _, in := range []string{"localhost:5000/skills/pdf:1.0.0", "LocalHost:5000/skills/pdf:1.0.0"} {
			ref, err := ParseReference(in)
			if err != nil {
				t.Fatal(err)
			}
			refs, vetted := MirrorsFor([]ociref.Mirror{{Prefix: prefix, Locations: []string{"mirror.internal/vetted/"}, Vetted: true}}, ref)
			if len(refs) != 1 || refs[0].String() != "mirror.internal/vetted/pdf:1.0.0" || !vetted {
				t.Errorf("prefix %q, ref %q: got %v vetted=%v; want [mirror.internal/vetted/pdf:1.0.0] vetted=true", prefix, in, refs, vetted)
			}
		}
	}
	for _, tc := range []struct{ prefix, ref string }{
		{"ghcr.io:443/acme", "ghcr.io/acme/pdf"},
		{"GHCR.IO/acme/", "ghcr.io:443/acme/pdf"},
		{"ghcr.io./acme", "ghcr.io/acme/pdf"},
		{"https://ghcr.io/Acme", "ghcr.io/acme/pdf"},
		{"index.docker.io/acme", "docker.io/acme/pdf"},
		{"docker.io/acme", "index.docker.io/acme/pdf"},
		{"docker.io/acme", "registry-1.docker.io/acme/pdf"},
	} {
		ref, err := ParseReference(tc.ref)
		if err != nil {
			t.Fatal(err)
		}
		if refs, vetted := MirrorsFor([]ociref.Mirror{{Prefix: tc.prefix, Locations: []string{"oci:/srv"}, Vetted: true}}, ref); len(refs) != 1 || !vetted {
			t.Errorf("prefix %q does not cover %q: got %v vetted=%v", tc.prefix, tc.ref, refs, vetted)
		}
	}
	// A longer prefix wins however the two are spelled.
	ref, _ := ParseReference("ghcr.io/acme/skills/pdf")
	refs, _ := MirrorsFor([]ociref.Mirror{
		{Prefix: "GHCR.IO/acme/skills/", Locations: []string{"long.internal/x"}},
		{Prefix: "ghcr.io:443/acme", Locations: []string{"short.internal/x"}},
	}, ref)
	if len(refs) != 1 || refs[0].Repo() != "long.internal/x/pdf" {
		t.Errorf("longest prefix: got %v; want long.internal/x/pdf", refs)
	}
}

// A mirrored repository is read from the mirror (a layout here), and a
// vetted scope never falls back to the upstream.
func TestMirrorReads(t *testing.T) {
	work := t.TempDir()
	dir := writeSkill(t, work, "pdf", "1.0.0", nil)
	pkg, err := Pack(bg, dir, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pkg.Close()
	plain := NewClient(Options{})
	mirrorDir := filepath.Join(work, "mirror")
	repo, _ := ParseReference("oci:" + filepath.Join(mirrorDir, "pdf"))
	if _, err := plain.Publish(bg, pkg, repo, PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	// The upstream host does not exist: any request to it fails.
	c := NewClient(Options{Mirrors: []ociref.Mirror{{Prefix: "upstream.invalid/acme", Locations: []string{"oci:" + mirrorDir}, Vetted: true}}})
	ref, _ := ParseReference("upstream.invalid/acme/pdf@" + pkg.Manifest.Digest.String())
	res, err := c.Resolve(bg, ref)
	if err != nil {
		t.Fatalf("resolve through the mirror: %v", err)
	}
	if got, want := res.Name(), "pdf"; got != want {
		t.Errorf("name: got %q, want %q", got, want)
	}
	vs, err := c.Versions(bg, ref)
	if err != nil || len(vs) != 1 || vs[0].String() != "1.0.0" {
		t.Errorf("versions through the mirror: got %v, %v; want [1.0.0]", vs, err)
	}
	missing, _ := ParseReference("upstream.invalid/acme/other:1.0.0")
	if _, err := c.Resolve(bg, missing); !errors.Is(err, ErrNotVetted) {
		t.Errorf("vetted miss: got %v, want ErrNotVetted", err)
	}
	if _, err := c.WithoutMirrors().Resolve(bg, ref); errors.Is(err, ErrNotVetted) || err == nil {
		t.Errorf("WithoutMirrors: got %v, want the upstream's own failure", err)
	}
}
