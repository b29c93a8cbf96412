package bundle

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/skillpm/skillpm/registry"
)

// writeTar writes the layout folder dir as an uncompressed tarball at
// out (blobs are compressed already): sorted entries, fixed times and
// owners, written to a temporary file and renamed into place.
func writeTar(dir, out string) (err error) {
	var files []string
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	f, err := os.CreateTemp(filepath.Dir(out), ".skillpm-bundle-*.tar")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	tw := tar.NewWriter(f)
	for _, name := range files {
		if err := addFile(tw, filepath.Join(dir, filepath.FromSlash(name)), name); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), out)
}

func addFile(tw *tar.Writer, src, name string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	hdr := &tar.Header{Name: name, Mode: 0o644, Size: fi.Size(), ModTime: time.Unix(0, 0).UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err = io.Copy(tw, f)
	return err
}

// ErrBadBundle: a bundle is not an OCI layout skillpm wrote, or its
// tarball holds something other than the layout's files.
var ErrBadBundle = errors.New("not a skillpm bundle")

// isLayoutEntry reports whether a bundle tarball may hold name: the
// layout files and blobs named by their digest. (Not a regexp: compiling
// one with {64} and {128} repeats in package init costs every skillpm
// process about 0.3 ms.)
func isLayoutEntry(name string) bool {
	if name == ocispec.ImageLayoutFile || name == ocispec.ImageIndexFile {
		return true
	}
	rest, ok := strings.CutPrefix(name, ocispec.ImageBlobsDir+"/")
	if !ok {
		return false
	}
	alg, encoded, ok := strings.Cut(rest, "/")
	if !ok || (alg != "sha256" && alg != "sha512") {
		return false
	}
	return digest.NewDigestFromEncoded(digest.Algorithm(alg), encoded).Validate() == nil
}

// tarLimits bound what unpacking a bundle tarball may write.
type tarLimits struct {
	entries int   // most entries, folders included
	bytes   int64 // most bytes in all files together
	entry   int64 // largest blob
	index   int64 // largest index.json or oci-layout
}

// defaultTarLimits allow a bundle of many skills while bounding a
// hostile tarball: 10,000 entries (what registry.Limits allows one
// skill's files; a skill with its referrers takes about half a dozen
// blobs), 4 GiB in all, 1 GiB per blob, and index.json no larger than a
// registry accepts a manifest (registry.Limits.MaxManifestSize, 4 MiB).
func defaultTarLimits() tarLimits {
	return tarLimits{
		entries: 10000,
		bytes:   4 << 30,
		entry:   1 << 30,
		index:   registry.Limits{}.WithDefaults().MaxManifestSize,
	}
}

// extractTar unpacks a bundle tarball into dir, accepting only the
// files of an OCI layout: no links, no paths outside dir, no other
// names, nothing past lim. Blob contents are checked against their
// digests when read.
func extractTar(file, dir string, lim tarLimits) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	var entries int
	var total int64
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrBadBundle, file, err)
		}
		if entries++; entries > lim.entries {
			return fmt.Errorf("%w: %s: more than %d entries", ErrBadBundle, file, lim.entries)
		}
		name := path.Clean(hdr.Name)
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if hdr.Typeflag != tar.TypeReg || !isLayoutEntry(name) {
			return fmt.Errorf("%w: %s: unexpected entry %q", ErrBadBundle, file, hdr.Name)
		}
		limit := lim.entry
		if name == "index.json" || name == "oci-layout" {
			limit = lim.index
		}
		if hdr.Size > limit {
			return fmt.Errorf("%w: %s: entry %q is %d bytes, over the %d byte limit", ErrBadBundle, file, hdr.Name, hdr.Size, limit)
		}
		if total += hdr.Size; total > lim.bytes {
			return fmt.Errorf("%w: %s: content exceeds the %d byte limit", ErrBadBundle, file, lim.bytes)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrBadBundle, file, err)
		}
		_, err = io.Copy(out, io.LimitReader(tr, hdr.Size))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: %s: entry %q is cut short: %v", ErrBadBundle, file, hdr.Name, err)
		}
		if err != nil {
			return err
		}
	}
}
