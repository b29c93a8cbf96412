package wellknown

import (
	"archive/tar"
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"

	"github.com/skillpm/skillpm/registry"
)

// maxLinkTarget bounds a zip symlink's target, as registry.Unpack bounds
// tar link names.
const maxLinkTarget = 4096

// unpackZip extracts a zip archive into dst. It has no extraction rules
// of its own: the zip is transcoded, entry by entry, into a tar stream
// that registry.Unpack reads, so a zip meets exactly the checks an OCI
// layer does (names, traversal, links, devices, duplicates, file and
// byte limits, all-or-nothing staging). What only a zip can do wrong is
// checked here: a central directory longer than the file limit, and an
// entry that inflates to more than its declared size (archive/zip stops
// it; the declared size is what the limits were checked against).
func unpackZip(ctx context.Context, r io.ReaderAt, size int64, dst string, lim registry.Limits) error {
	l := lim.WithDefaults()
	// archive/zip reads every central directory header into memory
	// before a count can be checked (and checks the declared count only
	// modulo 65536), so the directory is bounded by what MaxFiles
	// entries need: else a 500 MB directory of empty entries would cost
	// gigabytes before it is refused.
	br := &budgetReaderAt{r: r, left: int64(l.MaxFiles)*zipDirBytesPerFile + zipDirSlack}
	zr, err := zip.NewReader(br, size)
	if errors.Is(err, errZipDirTooLarge) {
		return &registry.UnsafeArchiveError{Reason: fmt.Sprintf("central directory larger than %d entries need (limit max_files)", l.MaxFiles)}
	}
	if err != nil {
		return &registry.UnsafeArchiveError{Reason: "not a valid zip archive: " + err.Error()}
	}
	br.left = math.MaxInt64 // entries' data is bounded by Unpack
	if len(zr.File) > l.MaxFiles {
		return &registry.UnsafeArchiveError{Reason: fmt.Sprintf("%d entries, more than %d (limit max_files)", len(zr.File), l.MaxFiles)}
	}
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(zipToTar(ctx, zr, pw)) }()
	_, err = registry.Unpack(ctx, pr, dst, registry.UnpackOptions{Limits: lim})
	pr.CloseWithError(errors.New("unpack stopped")) // ends the writer if Unpack stopped early
	return err
}

// The central directory's budget: per entry, its 46-byte header and a
// name and extra fields far longer than any real archive's; and room for
// the end record and its comment, which archive/zip searches for in the
// last 64 KiB.
const (
	zipDirBytesPerFile = 1 << 10
	zipDirSlack        = 1 << 20
)

var errZipDirTooLarge = errors.New("zip central directory over its budget")

// budgetReaderAt fails reads once left bytes have been read.
type budgetReaderAt struct {
	r    io.ReaderAt
	left int64
}

func (b *budgetReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if int64(len(p)) > b.left {
		return 0, errZipDirTooLarge
	}
	n, err := b.r.ReadAt(p, off)
	b.left -= int64(n)
	return n, err
}

// zipToTar writes zr's entries to w as a tar stream, in archive order.
func zipToTar(ctx context.Context, zr *zip.Reader, w io.Writer) error {
	tw := tar.NewWriter(w)
	for _, f := range zr.File {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := zipEntry(tw, f); err != nil {
			return err
		}
	}
	return tw.Close()
}

func zipEntry(tw *tar.Writer, f *zip.File) error {
	mode := f.Mode()
	hdr := &tar.Header{Name: f.Name, Mode: int64(mode.Perm()), ModTime: registry.EntryModTime, Format: tar.FormatPAX}
	switch {
	case mode&fs.ModeSymlink != 0:
		target, err := readSmall(f, maxLinkTarget)
		if err != nil {
			return err
		}
		hdr.Typeflag, hdr.Linkname = tar.TypeSymlink, string(target)
		return tw.WriteHeader(hdr)
	case mode.IsDir():
		hdr.Typeflag = tar.TypeDir
		return tw.WriteHeader(hdr)
	case mode&fs.ModeCharDevice != 0:
		hdr.Typeflag = tar.TypeChar // refused by registry.Unpack
		return tw.WriteHeader(hdr)
	case mode&fs.ModeDevice != 0:
		hdr.Typeflag = tar.TypeBlock
		return tw.WriteHeader(hdr)
	case mode&fs.ModeNamedPipe != 0:
		hdr.Typeflag = tar.TypeFifo
		return tw.WriteHeader(hdr)
	case !mode.IsRegular():
		return &registry.UnsafeArchiveError{Entry: f.Name, Reason: "unsupported zip entry type " + mode.Type().String()}
	}
	if f.UncompressedSize64 > math.MaxInt64 {
		return &registry.UnsafeArchiveError{Entry: f.Name, Reason: "declared size overflows"}
	}
	// The declared size goes in the header, where registry.Unpack checks
	// it against the limits before a byte is inflated.
	hdr.Typeflag, hdr.Size = tar.TypeReg, int64(f.UncompressedSize64)
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	rc, err := f.Open()
	if err != nil {
		return &registry.UnsafeArchiveError{Entry: f.Name, Reason: err.Error()}
	}
	defer rc.Close()
	n, err := io.Copy(tw, io.LimitReader(rc, hdr.Size))
	if err == nil && n == hdr.Size {
		// archive/zip reports an entry that inflates past its declared
		// size, or fails its CRC, only on the read after the last byte.
		var one [1]byte
		if k, rerr := rc.Read(one[:]); k > 0 {
			err = errors.New("inflates to more than its declared size")
		} else if rerr != nil && rerr != io.EOF {
			err = rerr
		}
	}
	if err == nil && n != hdr.Size {
		err = fmt.Errorf("inflates to %d bytes, its header says %d", n, hdr.Size)
	}
	if err != nil {
		return &registry.UnsafeArchiveError{Entry: f.Name, Reason: err.Error()}
	}
	return nil
}

// readSmall reads a whole entry of at most max bytes.
func readSmall(f *zip.File, max int64) ([]byte, error) {
	if f.UncompressedSize64 > uint64(max) {
		return nil, &registry.UnsafeArchiveError{Entry: f.Name, Reason: fmt.Sprintf("symlink target longer than %d bytes", max)}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, &registry.UnsafeArchiveError{Entry: f.Name, Reason: err.Error()}
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil || int64(len(b)) > max {
		return nil, &registry.UnsafeArchiveError{Entry: f.Name, Reason: fmt.Sprintf("unreadable symlink target (%v)", err)}
	}
	return b, nil
}
