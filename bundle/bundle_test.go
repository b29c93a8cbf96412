package bundle

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
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

func TestIsLayoutEntry(t *testing.T) {
	hex64 := strings.Repeat("ab", 32)
	for name, want := range map[string]bool{
		"oci-layout":                             true,
		"index.json":                             true,
		"blobs/sha256/" + hex64:                  true,
		"blobs/sha512/" + hex64 + hex64:          true,
		"blobs/sha512/" + hex64:                  false, // wrong length for sha512
		"blobs/sha256/" + hex64[1:]:              false,
		"blobs/sha256/" + strings.ToUpper(hex64): false,
		"blobs/sha384/" + hex64:                  false,
		"blobs/sha256/" + hex64 + "/x":           false,
		"blobs/sha256":                           false,
		"./index.json":                           false,
		"x/blobs/sha256/" + hex64:                false,
		"manifest.json":                          false,
	} {
		if got := isLayoutEntry(name); got != want {
			t.Errorf("isLayoutEntry(%q) = %v; want %v", name, got, want)
		}
	}
}

func TestExtractTarLimits(t *testing.T) {
	blob := func(c byte) string { return "blobs/sha256/" + strings.Repeat(string(c), 64) }
	type file struct {
		name string
		size int
	}
	small := tarLimits{entries: 4, bytes: 100, entry: 60, index: 30}
	for _, tc := range []struct {
		name    string
		files   []file
		wantErr string // "" for success
	}{
		{"within the limits", []file{{"oci-layout", 10}, {"index.json", 30}, {blob('a'), 60}}, ""},
		{"too many entries", []file{{"oci-layout", 1}, {"index.json", 1}, {blob('a'), 1}, {blob('b'), 1}, {blob('c'), 1}}, "more than 4 entries"},
		{"too many bytes", []file{{blob('a'), 60}, {blob('b'), 41}}, "exceeds the 100 byte limit"},
		{"blob too big", []file{{blob('a'), 61}}, "over the 60 byte limit"},
		{"index.json too big", []file{{"index.json", 31}}, "over the 30 byte limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "b.tar")
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			tw := tar.NewWriter(f)
			for _, e := range tc.files {
				tw.WriteHeader(&tar.Header{Name: e.name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(e.size)})
				tw.Write(bytes.Repeat([]byte{'x'}, e.size))
			}
			tw.Close()
			f.Close()
			err = extractTar(p, t.TempDir(), small)
			if tc.wantErr == "" {
				if err != nil {
					t.Errorf("extractTar: %v; want no error", err)
				}
				return
			}
			if !errors.Is(err, ErrBadBundle) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("extractTar: %v; want ErrBadBundle containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestOpenRefusesHugeIndex(t *testing.T) {
	dir := t.TempDir()
	big := `{"schemaVersion":2,"manifests":[],"pad":"` + strings.Repeat("x", int(defaultTarLimits().index)) + `"}`
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	// Open refuses the folder before anything reads the index whole.
	if err := os.WriteFile(filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(registry.NewClient(registry.Options{}), dir, t.TempDir()); !errors.Is(err, ErrBadBundle) || !strings.Contains(err.Error(), "byte limit") {
		t.Errorf("Open: %v; want ErrBadBundle over the byte limit", err)
	}
	// A symlinked index.json is not followed.
	os.Remove(filepath.Join(dir, "index.json"))
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "index.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(registry.NewClient(registry.Options{}), dir, t.TempDir()); !errors.Is(err, ErrBadBundle) {
		t.Errorf("Open with index.json -> /dev/zero: %v; want ErrBadBundle", err)
	}
}

// A truncated tarball is a bad bundle, not an unexpected failure.
func TestOpenRejectsTruncatedTarball(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	_, lock := setup(t, c)
	p := filepath.Join(t.TempDir(), "b.tar")
	if _, err := Export(bg, c, lock, p, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside the first entry's content.
	if err := os.WriteFile(p, data[:512+10], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(c, p, t.TempDir()); !errors.Is(err, ErrBadBundle) {
		t.Errorf("Open: %v; want ErrBadBundle", err)
	}
}

// An index.json whose entries lie about their manifests (a size that is
// not the blob's) is a bad bundle, refused by Open, not an unexpected
// failure when the skill is read.
func TestOpenRejectsLyingIndex(t *testing.T) {
	c := registry.NewClient(registry.Options{})
	_, lock := setup(t, c)
	out := filepath.Join(t.TempDir(), "bundle")
	if _, err := Export(bg, c, lock, out, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(out, "index.json")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var idx ocispec.Index
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatal(err)
	}
	idx.Manifests[0].Size = 1 << 40
	if data, err = json.Marshal(idx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Open(c, out, t.TempDir())
	if err == nil {
		src.Close()
	}
	if !errors.Is(err, ErrBadBundle) {
		t.Errorf("Open: %v; want ErrBadBundle", err)
	}
}
