package bundle

import (
	"archive/tar"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"oras.land/oras-go/v2"

	"github.com/skillpm/skillpm/lockfile"
	"github.com/skillpm/skillpm/registry"
)

var bg = context.Background()

// publish publishes a small skill to oci:root/name and returns its
// lock entry.
func publish(t *testing.T, c *registry.Client, root, name, version string) lockfile.Skill {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	os.MkdirAll(dir, 0o755)
	md := "---\nname: " + name + "\ndescription: Test skill " + name + ". Use it in tests.\nversion: " + version + "\n---\n# " + name + "\n"
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644)
	pkg, err := registry.Pack(bg, dir, registry.PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pkg.Close()
	repo, _ := registry.ParseReference("oci:" + filepath.Join(root, name))
	if _, err := c.Publish(bg, pkg, repo, registry.PublishOptions{}); err != nil {
		t.Fatal(err)
	}
	return lockfile.Skill{Name: name, Version: version, Repository: repo.Repo(), Manifest: pkg.Manifest.Digest.String(), Content: pkg.Layer.Digest.String()}
}

// setup publishes alpha (with a signature referrer) and beta to
// layouts under a fresh folder and returns it with their lock.
func setup(t *testing.T, c *registry.Client) (string, *lockfile.File) {
	t.Helper()
	up := t.TempDir()
	a, b := publish(t, c, up, "alpha", "1.0.0"), publish(t, c, up, "beta", "2.1.0")
	aref, _ := registry.ParseReference(a.Repository + "@" + a.Manifest)
	if _, err := c.Attach(bg, aref, registry.Referrer{ArtifactType: "application/vnd.dev.sigstore.bundle.v0.3+json", Blob: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	return up, &lockfile.File{Skills: []lockfile.Skill{a, b}}
}

func TestExportAndInstall(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	for _, name := range []string{"bundle", "bundle.tar"} {
		t.Run(name, func(t *testing.T) {
			up, lock := setup(t, c)
			a, b := lock.Skills[0], lock.Skills[1]
			out := filepath.Join(t.TempDir(), name)
			exp, err := Export(bg, c, lock, out, ExportOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := exp.Skills[0].Referrers, 1; got != want {
				t.Errorf("alpha referrers: got %d, want %d", got, want)
			}
			// The upstream goes away: install needs only the bundle.
			os.RemoveAll(up)
			src, err := Open(c, out, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			for _, s := range lock.Skills {
				dst := filepath.Join(t.TempDir(), s.Name)
				if err := src.Materialize(bg, s, dst); err != nil {
					t.Fatalf("materialize %s: %v", s.Name, err)
				}
				if _, err := os.Stat(filepath.Join(dst, "SKILL.md")); err != nil {
					t.Errorf("%s: %v", s.Name, err)
				}
			}
			st, err := oras.Resolve(bg, mustStore(t, src.Dir), Tag("alpha", "1.0.0"), oras.DefaultResolveOptions)
			if err != nil || st.Digest.String() != a.Manifest {
				t.Errorf("alpha@1.0.0 in the bundle: got %v, %v", st.Digest, err)
			}
			// A lock entry the bundle does not hold fails, naming it.
			other := b
			other.Manifest = "sha256:" + strings.Repeat("0", 64)
			if err := src.Materialize(bg, other, filepath.Join(t.TempDir(), "x")); !errors.Is(err, registry.ErrNotFound) || !strings.Contains(err.Error(), "not in the bundle") {
				t.Errorf("missing entry: got %v, want not in the bundle", err)
			}
			if _, err := src.Versions(bg, a.Repository); !errors.Is(err, ErrOffline) {
				t.Errorf("Versions: got %v, want ErrOffline", err)
			}
		})
	}
}

func mustStore(t *testing.T, dir string) oras.ReadOnlyTarget {
	t.Helper()
	ref, _ := registry.ParseReference("oci:" + dir)
	s, err := registry.NewClient(registry.Options{}).Target(bg, ref, false)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpenRejectsHostileTarballs(t *testing.T) {
	for _, tc := range []struct {
		name string
		hdr  tar.Header
	}{
		{"escape", tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Mode: 0o644}},
		{"symlink", tar.Header{Name: "index.json", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}},
		{"other file", tar.Header{Name: "blobs/sha256/run.sh", Typeflag: tar.TypeReg, Mode: 0o755}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "b.tar")
			f, _ := os.Create(p)
			tw := tar.NewWriter(f)
			tw.WriteHeader(&tc.hdr)
			tw.Close()
			f.Close()
			_, err := Open(registry.NewClient(registry.Options{}), p, t.TempDir())
			if !errors.Is(err, ErrBadBundle) {
				t.Errorf("got %v, want ErrBadBundle", err)
			}
		})
	}
}
