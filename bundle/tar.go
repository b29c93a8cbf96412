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
	"regexp"
	"sort"
	"time"
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

// layoutEntry is what a bundle tarball may hold: the layout files and
// blobs named by their digest.
var layoutEntry = regexp.MustCompile(`^(oci-layout|index\.json|blobs/sha256/[a-f0-9]{64}|blobs/sha512/[a-f0-9]{128})$`)

// maxTarEntry bounds one file of a bundle tarball.
const maxTarEntry = 1 << 30

// extractTar unpacks a bundle tarball into dir, accepting only the
// files of an OCI layout: no links, no paths outside dir, no other
// names. Blob contents are checked against their digests when read.
func extractTar(file, dir string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrBadBundle, file, err)
		}
		name := path.Clean(hdr.Name)
		if hdr.Typeflag == tar.TypeDir {
			continue
		}
		if hdr.Typeflag != tar.TypeReg || !layoutEntry.MatchString(name) {
			return fmt.Errorf("%w: %s: unexpected entry %q", ErrBadBundle, file, hdr.Name)
		}
		if hdr.Size > maxTarEntry {
			return fmt.Errorf("%w: %s: entry %q is %d bytes", ErrBadBundle, file, hdr.Name, hdr.Size)
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
		if err != nil {
			return err
		}
	}
}
