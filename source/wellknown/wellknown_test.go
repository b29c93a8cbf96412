package wellknown

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/source/wellknown/discovery"
)

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill. Use it in tests.\nversion: 1.2.0\n---\n# " + name + "\n"
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

type tarEntry struct {
	name, body, link string
	typ              byte
}

func tarGz(t *testing.T, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Size: int64(len(e.body)), Linkname: e.link}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

type zipEntryT struct {
	name, body string
	mode       fs.FileMode
}

func zipBytes(t *testing.T, entries ...zipEntryT) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e.body))
	}
	zw.Close()
	return buf.Bytes()
}

// site is a loopback origin serving files by path.
type site struct {
	files map[string][]byte
	srv   *httptest.Server
	hits  int
}

func newSite(t *testing.T) *site {
	s := &site{files: map[string][]byte{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits++
		b, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// index serves a 0.2.0 index at p listing entries.
func (s *site) index(t *testing.T, p string, entries ...map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"$schema": SchemaURI, "skills": entries})
	if err != nil {
		t.Fatal(err)
	}
	s.files[p] = b
}

// artifact serves b at p and returns its index entry.
func (s *site) artifact(name, typ, p string, b []byte) map[string]any {
	s.files[p] = b
	return map[string]any{"name": name, "type": typ, "description": "d", "url": p, "digest": sum(b)}
}

func newClient(t *testing.T) *Client {
	return &Client{CacheDir: t.TempDir()}
}

func TestIndexAndExport(t *testing.T) {
	s := newSite(t)
	md := []byte(skillMD("notes"))
	tgz := tarGz(t, tarEntry{name: "SKILL.md", body: skillMD("pdf")}, tarEntry{name: "scripts/run.sh", body: "echo hi\n"})
	zp := zipBytes(t, zipEntryT{name: "SKILL.md", body: skillMD("docx")}, zipEntryT{name: "references/a.md", body: "ref\n"})
	s.index(t, discovery.IndexPath,
		s.artifact("pdf", TypeArchive, "/.well-known/agent-skills/pdf.tar.gz", tgz),
		s.artifact("notes", TypeSkillMD, "/.well-known/agent-skills/notes/SKILL.md", md),
		s.artifact("docx", TypeArchive, "docx.zip", zp), // relative to the index
		map[string]any{"name": "future", "type": "plugin", "url": "x", "digest": sum(nil)},
	)
	s.files["/.well-known/agent-skills/docx.zip"] = zp
	c := newClient(t)
	idx, err := c.Index(context.Background(), s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if idx.Legacy || len(idx.Skills) != 3 || idx.Skills[0].Name != "docx" {
		t.Fatalf("index = %+v; want 3 skills sorted, not legacy", idx)
	}
	if got, want := strings.Join(idx.Skipped, ","), "future"; got != want {
		t.Errorf("skipped = %q; want %q", got, want)
	}
	if got, want := idx.Skills[0].URL, s.srv.URL+"/.well-known/agent-skills/docx.zip"; got != want {
		t.Errorf("docx url = %q; want %q", got, want)
	}
	out := t.TempDir()
	for _, want := range []struct{ name, file, body string }{
		{"pdf", "scripts/run.sh", "echo hi\n"},
		{"notes", "SKILL.md", string(md)},
		{"docx", "references/a.md", "ref\n"},
	} {
		e, err := idx.Find(want.name)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(out, want.name)
		if err := c.Export(context.Background(), e, dst); err != nil {
			t.Fatalf("export %s: %v", want.name, err)
		}
		got, err := os.ReadFile(filepath.Join(dst, want.file))
		if err != nil || string(got) != want.body {
			t.Errorf("%s/%s = %q, %v; want %q", want.name, want.file, got, err, want.body)
		}
	}
	if _, err := idx.Find("nope"); !errors.Is(err, ErrUnknownSkill) || !strings.Contains(err.Error(), "docx, notes, pdf") {
		t.Errorf("Find(nope) = %v; want ErrUnknownSkill listing the skills", err)
	}

	// Warm: the origin is gone, the cache serves the verified bytes.
	s.srv.Close()
	e, _ := idx.Find("pdf")
	if err := c.Export(context.Background(), e, filepath.Join(out, "again")); err != nil {
		t.Fatalf("warm export: %v", err)
	}
}

func TestLegacyFallback(t *testing.T) {
	s := newSite(t)
	s.index(t, discovery.LegacyIndexPath, s.artifact("notes", TypeSkillMD, "/.well-known/skills/notes/SKILL.md", []byte(skillMD("notes"))))
	idx, err := newClient(t).Index(context.Background(), s.srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if !idx.Legacy || len(idx.Skills) != 1 {
		t.Fatalf("index = %+v; want the legacy one with one skill", idx)
	}
}

func TestBadIndexes(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		want error
		msg  string
	}{
		{"not json", "<html>hello</html>", ErrInvalidIndex, "not a JSON discovery index"},
		{"legacy files, no digest", `{"skills":[{"name":"a","description":"d","files":["SKILL.md"]}]}`, ErrNoDigest, "legacy v0.1"},
		{"no digest", `{"$schema":"` + SchemaURI + `","skills":[{"name":"a","type":"skill-md","url":"a.md"}]}`, ErrNoDigest, `skill "a"`},
		{"bad digest", `{"$schema":"` + SchemaURI + `","skills":[{"name":"a","type":"skill-md","url":"a.md","digest":"sha256:XYZ"}]}`, ErrInvalidIndex, "64 lowercase hex"},
		{"bad name", `{"$schema":"` + SchemaURI + `","skills":[{"name":"../etc","type":"skill-md","url":"a.md","digest":"` + sum(nil) + `"}]}`, ErrInvalidIndex, "not a valid skill name"},
		{"twice", `{"$schema":"` + SchemaURI + `","skills":[{"name":"a","type":"skill-md","url":"a.md","digest":"` + sum(nil) + `"},{"name":"a","type":"skill-md","url":"a.md","digest":"` + sum(nil) + `"}]}`, ErrInvalidIndex, "twice"},
		{"other schema", `{"$schema":"https://schemas.agentskills.io/discovery/9.0.0/schema.json","skills":[]}`, ErrInvalidIndex, "unsupported $schema"},
		{"foreign origin", `{"$schema":"` + SchemaURI + `","skills":[{"name":"a","type":"skill-md","url":"https://evil.example/a.md","digest":"` + sum(nil) + `"}]}`, ErrInsecure, "another origin"},
		{"plain http elsewhere", `{"$schema":"` + SchemaURI + `","skills":[{"name":"a","type":"skill-md","url":"http://evil.example/a.md","digest":"` + sum(nil) + `"}]}`, ErrInsecure, "plain http"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t)
			s.files[discovery.IndexPath] = []byte(tc.body)
			_, err := newClient(t).Index(context.Background(), s.srv.URL)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Index = %v; want %v mentioning %q", err, tc.want, tc.msg)
			}
			if !strings.Contains(err.Error(), s.srv.URL) {
				t.Errorf("error %q does not name the origin", err)
			}
		})
	}
}

func TestIndexLimits(t *testing.T) {
	s := newSite(t)
	s.files[discovery.IndexPath] = []byte(`{"skills":[` + strings.Repeat(" ", 2<<10) + `]}`)
	c := &Client{Limits: registry.Limits{MaxManifestSize: 1 << 10}}
	if _, err := c.Index(context.Background(), s.srv.URL); !errors.Is(err, ErrInvalidIndex) || !strings.Contains(err.Error(), "byte limit") {
		t.Errorf("oversized index: %v; want the size limit", err)
	}
	var entries []string
	for range 3 {
		entries = append(entries, `{}`)
	}
	s.files[discovery.IndexPath] = []byte(`{"skills":[` + strings.Join(entries, ",") + `]}`)
	c = &Client{Limits: registry.Limits{MaxListItems: 2}}
	if _, err := c.Index(context.Background(), s.srv.URL); !errors.Is(err, ErrInvalidIndex) || !strings.Contains(err.Error(), "over the limit of 2") {
		t.Errorf("3 entries with a limit of 2: %v", err)
	}
}

func TestNoIndex(t *testing.T) {
	s := newSite(t)
	_, err := newClient(t).Index(context.Background(), s.srv.URL+"/docs")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "/docs/.well-known/skills/index.json") {
		t.Fatalf("Index = %v; want ErrNotFound naming both locations", err)
	}
}

func TestPlainHTTPRefused(t *testing.T) {
	_, err := newClient(t).Index(context.Background(), "http://skills.example.com")
	if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "plain_http") {
		t.Fatalf("Index = %v; want ErrInsecure pointing at plain_http", err)
	}
}

func TestWrongDigest(t *testing.T) {
	s := newSite(t)
	e := s.artifact("pdf", TypeArchive, "/pdf.tar.gz", tarGz(t, tarEntry{name: "SKILL.md", body: skillMD("pdf")}))
	s.files["/pdf.tar.gz"] = tarGz(t, tarEntry{name: "SKILL.md", body: skillMD("pdf") + "evil\n"})
	s.index(t, discovery.IndexPath, e)
	c := newClient(t)
	idx, err := c.Index(context.Background(), s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "pdf")
	err = c.Export(context.Background(), idx.Skills[0], dst)
	if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "nothing was extracted") {
		t.Fatalf("Export = %v; want ErrIntegrity", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists after a digest mismatch", dst)
	}
	if left, _ := os.ReadDir(filepath.Join(c.CacheDir, "sha256")); len(left) != 0 {
		t.Errorf("cache keeps %d files after a mismatch", len(left))
	}
}

func TestHostileArchives(t *testing.T) {
	bomb := func() []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		tw := tar.NewWriter(zw)
		tw.WriteHeader(&tar.Header{Name: "SKILL.md", Mode: 0o644, Size: 4 << 20})
		tw.Write(make([]byte, 4<<20))
		tw.Close()
		zw.Close()
		return buf.Bytes()
	}
	md := skillMD("evil")
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"tar traversal", tarGz(t, tarEntry{name: "SKILL.md", body: md}, tarEntry{name: "../../escape", body: "x"})},
		{"tar symlink escape", tarGz(t, tarEntry{name: "SKILL.md", body: md}, tarEntry{name: "up", typ: tar.TypeSymlink, link: "../../.."})},
		{"tar device", tarGz(t, tarEntry{name: "SKILL.md", body: md}, tarEntry{name: "dev", typ: tar.TypeChar})},
		{"gzip bomb", bomb()},
		{"zip traversal", zipBytes(t, zipEntryT{name: "SKILL.md", body: md}, zipEntryT{name: "../escape", body: "x"})},
		{"zip absolute", zipBytes(t, zipEntryT{name: "SKILL.md", body: md}, zipEntryT{name: "/etc/x", body: "x"})},
		{"zip symlink escape", zipBytes(t, zipEntryT{name: "SKILL.md", body: md}, zipEntryT{name: "up", body: "../../..", mode: fs.ModeSymlink | 0o777})},
		{"zip bomb", zipBytes(t, zipEntryT{name: "SKILL.md", body: md}, zipEntryT{name: "big", body: strings.Repeat("0", 4<<20)})},
		{"zip escape sequence in a name", zipBytes(t, zipEntryT{name: "SKILL.md", body: md}, zipEntryT{name: "a\x1b]0;owned\x07.md", body: "x"})},
		{"zip duplicate", zipBytes(t, zipEntryT{name: "SKILL.md", body: md}, zipEntryT{name: "SKILL.md", body: md})},
		{"zip device", zipBytes(t, zipEntryT{name: "SKILL.md", body: md}, zipEntryT{name: "dev", mode: fs.ModeDevice | fs.ModeCharDevice | 0o644})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSite(t)
			s.index(t, discovery.IndexPath, s.artifact("evil", TypeArchive, "/evil.bin", tc.body))
			c := &Client{CacheDir: t.TempDir(), Limits: registry.Limits{MaxBytes: 1 << 20}}
			idx, err := c.Index(context.Background(), s.srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			parent := t.TempDir()
			dst := filepath.Join(parent, "skills", "evil")
			err = c.Export(context.Background(), idx.Skills[0], dst)
			if !errors.Is(err, registry.ErrUnsafeArchive) {
				t.Fatalf("Export = %v; want ErrUnsafeArchive", err)
			}
			left, _ := os.ReadDir(parent)
			if len(left) != 0 {
				t.Errorf("left behind in %s: %v", parent, left)
			}
		})
	}
}

func TestZipDeclaredSizeLies(t *testing.T) {
	// An entry whose header declares fewer bytes than it inflates to.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateRaw(&zip.FileHeader{Name: "SKILL.md", Method: zip.Store, CompressedSize64: 20, UncompressedSize64: 5, CRC32: 0})
	w.Write([]byte(strings.Repeat("a", 20)))
	zw.Close()
	err := unpackZip(context.Background(), bytes.NewReader(buf.Bytes()), int64(buf.Len()), filepath.Join(t.TempDir(), "x"), registry.Limits{})
	if !errors.Is(err, registry.ErrUnsafeArchive) {
		t.Fatalf("unpackZip = %v; want ErrUnsafeArchive", err)
	}
}

func TestNameMismatch(t *testing.T) {
	s := newSite(t)
	s.index(t, discovery.IndexPath, s.artifact("pdf", TypeSkillMD, "/pdf.md", []byte(skillMD("other"))))
	c := newClient(t)
	idx, err := c.Index(context.Background(), s.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "pdf")
	if err := c.Export(context.Background(), idx.Skills[0], dst); !errors.Is(err, registry.ErrNotSkill) || !strings.Contains(err.Error(), `named "other"`) {
		t.Fatalf("Export = %v; want ErrNotSkill naming the mismatch", err)
	}
	if _, err := os.Stat(dst); err == nil {
		t.Errorf("%s left behind", dst)
	}
}

// A redirect to plain http on a host that is not loopback is refused
// before it is followed.
func TestRedirectToPlainHTTPRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://skills.example.com/index.json", http.StatusFound)
	}))
	defer srv.Close()
	_, err := newClient(t).Index(context.Background(), srv.URL)
	if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "redirect refused") {
		t.Fatalf("Index = %v; want ErrInsecure for the redirect", err)
	}
}

// An origin given with credentials is refused, never sent.
func TestOriginWithCredentials(t *testing.T) {
	_, err := newClient(t).Index(context.Background(), "https://user:secret@example.com")
	if !errors.Is(err, ErrInsecure) || strings.Contains(err.Error(), "secret") {
		t.Fatalf("Index = %v; want ErrInsecure without the secret", err)
	}
}

// A redirect may not step down from https to http, nor lead from another
// host to this machine's loopback; the redirects an origin legitimately
// makes (to its CDN over https, between loopback ports in tests) are
// followed.
func TestRedirectPolicy(t *testing.T) {
	c := &Client{PlainHTTP: []string{"mirror.internal"}}
	u := func(s string) *url.URL {
		p, err := url.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		first, prev, next string
		ok                bool
	}{
		{"https://example.com/i", "https://example.com/i", "https://cdn.example.net/i", true},
		{"http://127.0.0.1:8080/i", "http://127.0.0.1:8080/i", "http://localhost:9090/i", true},
		{"https://example.com/i", "https://example.com/i", "http://127.0.0.1:6379/", false},
		{"https://example.com/i", "https://example.com/i", "https://localhost/admin", false},
		{"https://example.com/i", "https://cdn.example.net/i", "http://[::1]:8500/v1/kv", false},
		{"https://example.com/i", "https://example.com/i", "http://mirror.internal/i", false},
		{"http://mirror.internal/i", "http://mirror.internal/i", "http://mirror.internal/j", true},
		{"https://example.com/i", "https://example.com/i", "https://0.0.0.0:6379/", false}, // reaches this machine too
		{"https://example.com/i", "https://example.com/i", "https://[::]:6379/", false},
		{"https://example.com/i", "https://example.com/i", "https://[::ffff:0.0.0.0]:6379/", false},
		{"https://example.com/i", "https://example.com/i", "file:///etc/passwd", false},
		{"https://example.com/i", "https://example.com/i", "ftp://example.com/i", false},
	} {
		err := c.allowedRedirect(u(tc.first), u(tc.prev), u(tc.next))
		if tc.ok && err != nil || !tc.ok && !errors.Is(err, ErrInsecure) {
			t.Errorf("redirect %s -> %s (from %s): %v; want allowed %v", tc.prev, tc.next, tc.first, err, tc.ok)
		}
	}
	// Through the client: a loopback origin's redirect to another
	// loopback port is followed, but the entries it finds there are on
	// another origin than the one named, which a policy or lock for the
	// named origin does not cover: refused, naming the origin to write,
	// unless that origin is allowed explicitly.
	target := newSite(t)
	target.index(t, discovery.IndexPath, target.artifact("notes", TypeSkillMD, "/.well-known/agent-skills/notes/SKILL.md", []byte(skillMD("notes"))))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.srv.URL+r.URL.Path, http.StatusFound)
	}))
	defer srv.Close()
	_, err := newClient(t).Index(context.Background(), srv.URL)
	if !errors.Is(err, ErrInsecure) || !strings.Contains(err.Error(), "redirected the index to "+target.srv.URL) {
		t.Fatalf("Index through a cross-origin redirect: %v; want ErrInsecure naming the origin redirected to", err)
	}
	allowed := newClient(t)
	allowed.AllowOrigins = []string{target.srv.URL}
	if _, err := allowed.Index(context.Background(), srv.URL); err != nil {
		t.Fatalf("Index through a redirect to an allowed origin: %v", err)
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r *bytes.Reader
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// A zip whose central directory lists far more entries than max_files
// is refused after reading about what max_files entries need, not after
// archive/zip has read (and held in memory) every header.
func TestZipHugeDirectory(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := range 50000 {
		if _, err := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("entry-%034d", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	zw.Close()
	src := &countingReaderAt{r: bytes.NewReader(buf.Bytes())}
	err := unpackZip(context.Background(), src, int64(buf.Len()), filepath.Join(t.TempDir(), "x"), registry.Limits{MaxFiles: 10})
	if !errors.Is(err, registry.ErrUnsafeArchive) {
		t.Fatalf("unpackZip = %v; want ErrUnsafeArchive", err)
	}
	if src.n > 2<<20 {
		t.Errorf("read %d bytes of a %d byte archive before refusing it; want at most what 10 entries need (about 1 MiB)", src.n, buf.Len())
	}
}
