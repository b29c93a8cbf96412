package registry

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/internal/atomicfile"
)

// Cache is a content-addressed store of manifests and blobs: an OCI image
// layout folder (blobs/sha256/<hex>) any OCI tool can read. Writes are
// atomic (an entry appears whole or not at all, see spool), so
// concurrent processes may share one. Every read is checked against its
// digest.
type Cache struct {
	dir string
}

// OpenCache opens or creates the cache in dir.
func OpenCache(dir string) (*Cache, error) {
	if err := os.MkdirAll(filepath.Join(dir, "blobs", "sha256"), 0o755); err != nil {
		return nil, fmt.Errorf("open cache: %w", err)
	}
	for name, body := range map[string]string{
		ocispec.ImageLayoutFile: `{"imageLayoutVersion":"1.0.0"}`,
		"index.json":            `{"schemaVersion":2,"manifests":[]}`,
	} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			if err := writeFileAtomic(p, []byte(body)); err != nil {
				return nil, fmt.Errorf("open cache: %w", err)
			}
		}
	}
	return &Cache{dir: dir}, nil
}

// Dir returns the cache folder.
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) path(d digest.Digest) (string, error) {
	if err := d.Validate(); err != nil || d.Algorithm() != digest.SHA256 {
		return "", fmt.Errorf("%w: unsupported digest %q", ErrIntegrity, d)
	}
	return filepath.Join(c.dir, "blobs", "sha256", d.Encoded()), nil
}

// Has reports whether the cache holds d with the given size (any size
// when size < 0). It does not read the content.
func (c *Cache) Has(d digest.Digest, size int64) bool {
	p, err := c.path(d)
	if err != nil {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && (size < 0 || fi.Size() == size)
}

// Open opens d for reading, with its size. The reader does not check the
// digest: callers do (ReadAll, or Unpack with UnpackOptions.Digest).
func (c *Cache) Open(d digest.Digest) (io.ReadCloser, int64, error) {
	p, err := c.path(d)
	if err != nil {
		return nil, 0, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, fmt.Errorf("cache: %s: %w", d, ErrNotFound)
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

// ReadAll returns the content of d when the cache holds it intact, at
// most max bytes. A corrupt entry is removed and reported as
// ErrNotFound, so the caller fetches it again.
func (c *Cache) ReadAll(d digest.Digest, max int64) ([]byte, error) {
	rc, size, err := c.Open(d)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if size > max {
		return nil, fmt.Errorf("%w: cached %s is %d bytes, over the %d byte limit", ErrIntegrity, d, size, max)
	}
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, err
	}
	if digest.FromBytes(b) != d {
		c.Delete(d)
		return nil, fmt.Errorf("cache: %s was corrupt and was dropped: %w", d, ErrNotFound)
	}
	return b, nil
}

// Verify reports whether the cache holds desc intact, reading it whole.
func (c *Cache) Verify(desc ocispec.Descriptor) bool {
	rc, size, err := c.Open(desc.Digest)
	if err != nil {
		return false
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		return false
	}
	return size == desc.Size && digest.NewDigest(digest.SHA256, h) == desc.Digest
}

// Put stores the content read from r as d. It fails with ErrIntegrity,
// storing nothing, when the content does not match d and size; it reads
// at most size+1 bytes of r, and refuses a negative size outright.
func (c *Cache) Put(ctx context.Context, d digest.Digest, size int64, r io.Reader) error {
	p, err := c.path(d)
	if err != nil {
		return err
	}
	if size < 0 {
		return fmt.Errorf("%w: %s: size %d; sizes must be positive", ErrIntegrity, d, size)
	}
	f, err := newSpool(filepath.Dir(p))
	if err != nil {
		return err
	}
	h := sha256.New()
	src := io.LimitReader(r, size+1)
	buf := copyBufs.Get().(*[]byte)
	n, err := io.CopyBuffer(io.MultiWriter(f, h), &ctxReader{ctx: ctx, r: src}, *buf)
	copyBufs.Put(buf)
	if err == nil && n != size {
		err = fmt.Errorf("%w: %s is %d bytes, its descriptor says %d", ErrIntegrity, d, n, size)
	}
	if got := digest.NewDigest(digest.SHA256, h); err == nil && got != d {
		err = fmt.Errorf("%w: content digest is %s, want %s", ErrIntegrity, got, d)
	}
	if err != nil {
		f.abort()
		return err
	}
	return f.commit(p)
}

// BlobWriter spools one blob of a known size into the cache; Commit
// makes it visible. The caller checks the digest of what it wrote
// (Unpack does, for layers streamed into the cache while they are
// unpacked); the writer refuses bytes beyond the size, and Commit a blob
// of any other size.
type BlobWriter struct {
	s          *spool
	path       string
	size, left int64
}

// NewWriter starts writing d, of size bytes, into the cache. A size of
// 0 or less is refused: it would bound nothing.
func (c *Cache) NewWriter(d digest.Digest, size int64) (*BlobWriter, error) {
	p, err := c.path(d)
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, fmt.Errorf("%w: %s: size %d; sizes must be positive", ErrIntegrity, d, size)
	}
	s, err := newSpool(filepath.Dir(p))
	if err != nil {
		return nil, err
	}
	return &BlobWriter{s: s, path: p, size: size, left: size}, nil
}

// Write spools p, failing with ErrIntegrity (and writing nothing of p)
// past the blob's size.
func (w *BlobWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > w.left {
		return 0, fmt.Errorf("%w: blob is longer than its descriptor's %d bytes", ErrIntegrity, w.size)
	}
	n, err := w.s.Write(p)
	w.left -= int64(n)
	return n, err
}

// Commit moves the verified blob into place.
func (w *BlobWriter) Commit() error {
	if w.left != 0 {
		w.s.abort()
		return fmt.Errorf("%w: blob is %d bytes, its descriptor says %d", ErrIntegrity, w.size-w.left, w.size)
	}
	return w.s.commit(w.path)
}

// Abort drops the partial blob.
func (w *BlobWriter) Abort() { w.s.abort() }

// Delete drops d from the cache.
func (c *Cache) Delete(d digest.Digest) error {
	p, err := c.path(d)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// ctxReader stops reading when ctx is done, so Ctrl-C interrupts long
// copies.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

func writeFileAtomic(p string, data []byte) error {
	return atomicfile.WriteFile(p, data, 0o644)
}
