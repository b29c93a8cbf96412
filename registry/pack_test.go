package registry

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	digest "github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// makeCopy writes the same skill into dir, varying everything that must
// not reach the artifact: file order, mtimes, umask and owner.
func makeCopy(t *testing.T, dir string, reverse bool, umask int, mtime time.Time, uid int) string {
	t.Helper()
	files := []struct{ path, body string }{
		{"SKILL.md", "---\nname: pdf\ndescription: Extract text from PDF files. Use it on PDFs.\nversion: 1.2.0\n---\n\n# PDF\n\nRun scripts/extract.sh.\n"},
		{"scripts/extract.sh", "#!/bin/sh\necho extract\n"},
		{"references/a.md", "alpha\n"},
		{"references/b.md", "beta\n"},
		{"assets/z/deep.txt", "deep\n"},
		{"assets/sample.pdf", sampleBytes(40<<10 + 123)}, // deflate blocks of its own
		{".git/HEAD", "ref: refs/heads/main\n"},
	}
	if reverse {
		for i, j := 0, len(files)-1; i < j; i, j = i+1, j-1 {
			files[i], files[j] = files[j], files[i]
		}
	}
	old := setUmask(umask)
	defer setUmask(old)
	root := filepath.Join(dir, "pdf")
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o666)
		if strings.HasSuffix(p, ".sh") {
			mode = 0o777
		}
		if err := os.WriteFile(p, []byte(f.body), mode); err != nil {
			t.Fatal(err)
		}
	}
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Chtimes(p, mtime, mtime)
			if uid > 0 {
				os.Lchown(p, uid, uid)
			}
		}
		return nil
	})
	return root
}

// sampleBytes is n bytes of fixed, incompressible content.
func sampleBytes(n int) string {
	rng := rand.New(rand.NewPCG(5, 6))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return string(b)
}

func TestPackReproducible(t *testing.T) {
	uid := 0
	if os.Getuid() == 0 {
		uid = 4242 // running as root: vary the owner too
	}
	a := makeCopy(t, t.TempDir(), false, 0o022, time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), 0)
	b := makeCopy(t, filepath.Join(t.TempDir(), "elsewhere", "deeper"), true, 0o077, time.Now(), uid)
	pa, err := Pack(bg, a, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pa.Close()
	pb, err := Pack(bg, b, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pb.Close()
	if got, want := pb.Layer.Digest, pa.Layer.Digest; got != want {
		t.Errorf("layer digest of the second copy = %s; want %s", got, want)
	}
	if got, want := pb.Manifest.Digest, pa.Manifest.Digest; got != want {
		t.Errorf("manifest digest of the second copy = %s; want %s", got, want)
	}
	// And the same folder again gives the same bytes.
	pc, err := Pack(bg, a, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if got, want := pc.Manifest.Digest, pa.Manifest.Digest; got != want {
		t.Errorf("manifest digest of a second pack = %s; want %s", got, want)
	}
	// A different created time changes only the manifest.
	pd, err := Pack(bg, a, PackOptions{Created: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer pd.Close()
	if pd.Manifest.Digest == pa.Manifest.Digest || pd.Layer.Digest != pa.Layer.Digest {
		t.Errorf("Created changed layer=%v manifest=%v; want only the manifest", pd.Layer.Digest != pa.Layer.Digest, pd.Manifest.Digest != pa.Manifest.Digest)
	}
	if !bytes.Contains(pd.ManifestJSON, []byte(`"org.opencontainers.image.created":"2023-11-14T22:13:20Z"`)) {
		t.Errorf("manifest lacks the created annotation: %s", pd.ManifestJSON)
	}
}

// A folder packs to the same bytes with every build of skillpm, not only
// on every run and machine. When this fails the pack format has changed
// (here, or in Go's compress/flate): a skill published before would get
// new digests, and publishing its unchanged version again would be
// refused as different content. Make such a change on purpose, say so
// in the release notes, then update the digests.
func TestPackGoldenDigests(t *testing.T) {
	dir := makeCopy(t, t.TempDir(), false, 0o022, time.Now(), 0)
	p, err := Pack(bg, dir, PackOptions{Created: time.Unix(1700000000, 0)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const (
		wantLayer    = "sha256:a3afbe23d80ffed304a2e6df79dcfd7c8558f56626105ed44c5fe42e4adc2650"
		wantManifest = "sha256:c16c88b5de546b4dca6e3d92d94e2a32523a374a04dd01d43ddd015dacb7e86d"
	)
	if p.Layer.Digest != wantLayer || p.Manifest.Digest != wantManifest {
		t.Errorf("layer %s, manifest %s; want %s, %s (the pack format changed)", p.Layer.Digest, p.Manifest.Digest, wantLayer, wantManifest)
	}
}

func TestPackLayerEntries(t *testing.T) {
	dir := makeCopy(t, t.TempDir(), false, 0o022, time.Now(), 0)
	if err := os.Chmod(filepath.Join(dir, "references/a.md"), 0o4755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	st, err := WriteLayer(bg, &buf, dir, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range layerHeaders(t, &buf) {
		got = append(got, h.Name+" "+strings.TrimLeft(h.FileInfo().Mode().Perm().String(), "-"))
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || !h.ModTime.Equal(EntryModTime) {
			t.Errorf("%s: uid=%d gid=%d uname=%q gname=%q mtime=%v; want 0 0 \"\" \"\" epoch", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime)
		}
	}
	want := []string{
		"pdf/ rwxr-xr-x",
		"pdf/SKILL.md rw-r--r--",
		"pdf/assets/ rwxr-xr-x",
		"pdf/assets/sample.pdf rw-r--r--",
		"pdf/assets/z/ rwxr-xr-x",
		"pdf/assets/z/deep.txt rw-r--r--",
		"pdf/references/ rwxr-xr-x",
		"pdf/references/a.md rwxr-xr-x",
		"pdf/references/b.md rw-r--r--",
		"pdf/scripts/ rwxr-xr-x",
		"pdf/scripts/extract.sh rwxr-xr-x",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st.Files != len(want) {
		t.Errorf("Files = %d; want %d", st.Files, len(want))
	}
}

func TestPackSymlinks(t *testing.T) {
	tests := []struct {
		name, target string
		wantErr      string
	}{
		{"inside", "references/a.md", ""},
		{"absolute", "/etc/passwd", "absolute path"},
		{"escapes", "../../outside", "does not resolve"},
		{"leaves", "../", "leaves the skill folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeSkill(t, t.TempDir(), "pdf", "1.0.0", map[string]string{"references/a.md": "a"})
			if err := os.Symlink(tt.target, filepath.Join(dir, "link")); err != nil {
				t.Fatal(err)
			}
			_, err := WriteLayer(bg, io.Discard, dir, "pdf")
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("WriteLayer: %v; want success", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("WriteLayer: %v; want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestPackRejectsBadVersion(t *testing.T) {
	dir := writeSkill(t, t.TempDir(), "pdf", "1.0", nil)
	if _, err := Pack(bg, dir, PackOptions{}); err == nil || !strings.Contains(err.Error(), "not semver") {
		t.Errorf("Pack with version 1.0: %v; want a semver error", err)
	}
	p, err := Pack(bg, dir, PackOptions{Version: "1.0.1+build.7"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got, want := p.Config.Version, "1.0.1+build.7"; got != want {
		t.Errorf("Config.Version = %q; want %q", got, want)
	}
}

// An already-compressed asset is stored in the layer as-is, from its
// first byte to its last, while text around it is still compressed.
func TestPackStoresIncompressibleFiles(t *testing.T) {
	dir := writeSkill(t, t.TempDir(), "media", "1.0.0", nil)
	rng := rand.New(rand.NewPCG(3, 4))
	// Not a multiple of 512, so the tar padding after it is flushed too.
	writeRandom(t, filepath.Join(dir, "assets", "image.png"), 100<<10+100, rng)
	// Text files under 16 KiB, before and after it.
	text := strings.Repeat("Use the image when the user asks for the logo; never resize it.\n", 200)
	for _, name := range []string{"assets/a.md", "assets/z.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	image, err := os.ReadFile(filepath.Join(dir, "assets", "image.png"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	st, err := WriteLayer(bg, &buf, dir, "media")
	if err != nil {
		t.Fatal(err)
	}
	layer := buf.Bytes()
	for _, part := range []struct {
		what string
		b    []byte
	}{{"first", image[:1024]}, {"last", image[len(image)-1024:]}} {
		if !bytes.Contains(layer, part.b) {
			t.Errorf("the %s KiB of image.png is not stored verbatim in the layer: its deflate block was Huffman-coded", part.what)
		}
	}
	if max := int64(len(image)) + int64(len(text))/4; st.Size > max {
		t.Errorf("layer is %d bytes; want at most %d (the text files should still compress)", st.Size, max)
	}
	// And skillpm's reader gets every file back byte for byte.
	out := filepath.Join(t.TempDir(), "out")
	if _, err := Unpack(bg, bytes.NewReader(layer), out, UnpackOptions{Digest: st.Digest, Size: st.Size}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"SKILL.md", "assets/a.md", "assets/image.png", "assets/z.md"} {
		got, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s reads back different content", name)
		}
	}
}

// TestPackORASAnnotations: the content layer is titled with the skill's
// name and carries what 'oras pull' needs to unpack it as that folder,
// including the digest of the uncompressed tar it checks.
func TestPackORASAnnotations(t *testing.T) {
	dir := makeCopy(t, t.TempDir(), false, 0o022, time.Now(), 0)
	p, err := Pack(bg, dir, PackOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var buf bytes.Buffer
	st, err := WriteLayer(bg, &buf, dir, p.Name)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	tarBytes, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	wantTar := digest.FromBytes(tarBytes)
	if st.TarDigest != wantTar {
		t.Errorf("TarDigest = %s; want %s, the digest of the gunzipped layer", st.TarDigest, wantTar)
	}
	want := map[string]string{ocispec.AnnotationTitle: p.Name, AnnotationORASUnpack: "true", AnnotationORASDigest: wantTar.String()}
	if !maps.Equal(p.Layer.Annotations, want) {
		t.Errorf("layer annotations = %v; want %v", p.Layer.Annotations, want)
	}
}

// Pack leaves out every entry named .git: a repository's folder, a
// submodule's gitlink file, and either in another case. install refuses
// a skill holding one, so packing it would publish an uninstallable
// skill.
func TestPackLeavesGitOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pdf")
	for p, body := range map[string]string{
		"SKILL.md":          "---\nname: pdf\ndescription: Work with PDF files. Use for PDFs.\n---\n# pdf\n",
		".git/config":       "[core]\n",
		"sub/.git":          "gitdir: ../.git/modules/sub\n",
		"sub/kept.md":       "kept\n",
		"other/.GIT/config": "[core]\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := WriteLayer(bg, &buf, dir, "pdf"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range layerHeaders(t, &buf) {
		got = append(got, h.Name)
	}
	want := []string{"pdf/", "pdf/SKILL.md", "pdf/other/", "pdf/sub/", "pdf/sub/kept.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("entries %v; want %v", got, want)
	}
}

// layerHeaders reads the headers of a layer WriteLayer wrote, checking
// that its gzip header has no name or time.
func layerHeaders(t *testing.T, layer io.Reader) []*tar.Header {
	t.Helper()
	zr, err := gzip.NewReader(layer)
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header name=%q mtime=%v; want none", zr.Name, zr.ModTime)
	}
	tr := tar.NewReader(zr)
	var hs []*tar.Header
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return hs
		}
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
}
