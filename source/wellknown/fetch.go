package wellknown

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/registry"
	"github.com/skillpm/skillpm/skill"
)

// Fetch downloads entry's artifact, checks it against entry.Digest and
// returns the path of the verified file: in CacheDir by digest (a file
// already there is used without any network), else in a temporary
// folder the caller removes with the returned cleanup. Nothing that does
// not match its digest is ever returned or kept.
func (c *Client) Fetch(ctx context.Context, e Entry) (path string, cleanup func(), err error) {
	noop := func() {}
	if !digestRE().MatchString(e.Digest) {
		return "", noop, fmt.Errorf("skill %q: %w", e.Name, ErrNoDigest)
	}
	hexsum := strings.TrimPrefix(e.Digest, "sha256:")
	dir := ""
	if c.CacheDir != "" {
		dir = filepath.Join(c.CacheDir, "sha256")
		cached := filepath.Join(dir, hexsum)
		if ok, err := fileHas(cached, hexsum); err == nil && ok {
			return cached, noop, nil
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", noop, fmt.Errorf("well-known cache: %w", err)
		}
	}
	tmp, err := os.CreateTemp(dir, ".download-")
	if err != nil {
		return "", noop, fmt.Errorf("well-known download: %w", err)
	}
	remove := func() { os.Remove(tmp.Name()) }
	if err := c.download(ctx, e, tmp); err != nil {
		tmp.Close()
		remove()
		return "", noop, err
	}
	if err := tmp.Close(); err != nil {
		remove()
		return "", noop, err
	}
	if dir == "" {
		return tmp.Name(), remove, nil
	}
	final := filepath.Join(dir, hexsum)
	if err := os.Rename(tmp.Name(), final); err != nil {
		remove()
		return "", noop, fmt.Errorf("well-known cache: %w", err)
	}
	return final, noop, nil
}

// download writes e's artifact to f, bounded by MaxBlobSize, and checks
// its digest.
func (c *Client) download(ctx context.Context, e Entry, f *os.File) error {
	max := c.Limits.WithDefaults().MaxBlobSize
	resp, err := c.do(ctx, e.URL)
	if err != nil {
		return fmt.Errorf("skill %q: %w", e.Name, err)
	}
	defer resp.Body.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), httpbound.LimitReader(resp.Body, max))
	if err != nil {
		var tl *httpbound.TooLongError
		if errors.As(err, &tl) {
			return fmt.Errorf("skill %q: %w: %s is over the %d byte limit (limits.max_blob_size)", e.Name, ErrIntegrity, redact(e.URL), max)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var pe *fs.PathError
		if errors.As(err, &pe) { // writing the download failed (a full disk): not the origin's fault
			return fmt.Errorf("skill %q: download %s: %w", e.Name, redact(e.URL), err)
		}
		return fmt.Errorf("skill %q: download %s: %w: %v", e.Name, redact(e.URL), ErrNetwork, err)
	}
	if got := "sha256:" + hex.EncodeToString(h.Sum(nil)); got != e.Digest {
		return fmt.Errorf("skill %q: %w: %s served %d bytes with digest %s, the index says %s; the artifact changed without its index, or was tampered with: nothing was extracted",
			e.Name, ErrIntegrity, redact(e.URL), n, got, e.Digest)
	}
	return nil
}

// fileHas reports whether the file at p hashes to hexsum.
func fileHas(p, hexsum string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false, err
	}
	return hex.EncodeToString(h.Sum(nil)) == hexsum, nil
}

// Export writes the skill of entry e into dst, which must not exist or
// be empty: the artifact is fetched (or taken from the cache) and its
// digest checked first, then unpacked through registry.Unpack with the
// client's limits. The result must be a skill named e.Name; otherwise
// nothing is left at dst.
func (c *Client) Export(ctx context.Context, e Entry, dst string) error {
	p, cleanup, err := c.Fetch(ctx, e)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := c.unpack(ctx, e, p, dst); err != nil {
		return fmt.Errorf("skill %q from %s: %w", e.Name, redact(e.URL), err)
	}
	s, err := skill.Load(dst)
	if err == nil && s.Frontmatter.Name != e.Name {
		err = fmt.Errorf("%w: its SKILL.md is named %q, the index says %q", registry.ErrNotSkill, s.Frontmatter.Name, e.Name)
	}
	if err != nil {
		os.RemoveAll(dst)
		return fmt.Errorf("skill %q from %s: %w", e.Name, redact(e.URL), err)
	}
	return nil
}

// unpack extracts the verified artifact at p into dst.
func (c *Client) unpack(ctx context.Context, e Entry, p, dst string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	lim := c.Limits
	opts := registry.UnpackOptions{Limits: lim, Digest: digest.Digest(e.Digest), Size: fi.Size()}
	if e.Type == TypeSkillMD {
		// One file, wrapped in a one-entry tar so that it takes the same
		// path (staging, limits, all-or-nothing) as an archive.
		max := lim.WithDefaults().MaxFileSize
		if fi.Size() > max {
			return fmt.Errorf("%w: SKILL.md is %d bytes, over the %d byte limit (limits.max_file_size)", ErrIntegrity, fi.Size(), max)
		}
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		if err := tw.WriteHeader(&tar.Header{Name: skill.FileName, Mode: 0o644, Size: fi.Size(), Typeflag: tar.TypeReg, ModTime: registry.EntryModTime}); err != nil {
			return err
		}
		if _, err := io.Copy(tw, f); err != nil {
			return err
		}
		if err := tw.Close(); err != nil {
			return err
		}
		_, err := registry.Unpack(ctx, &buf, dst, registry.UnpackOptions{Limits: lim})
		return err
	}
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return fmt.Errorf("%w: archive is %d bytes, too short to be one", registry.ErrUnsafeArchive, fi.Size())
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if string(magic[:]) == "PK\x03\x04" || string(magic[:]) == "PK\x05\x06" {
		return unpackZip(ctx, f, fi.Size(), dst, lim)
	}
	// tar+gzip (or plain tar): Unpack checks the gzip magic itself, and
	// checks the digest again as it reads.
	_, err = registry.Unpack(ctx, f, dst, opts)
	return err
}
