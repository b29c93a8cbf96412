package registry

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/skillpm/skillpm/skill"
)

// Reproducibility constants. Every content layer skillpm writes uses
// them, so the same folder packs to the same bytes on any machine.
var (
	// EntryModTime is the modification time of every archive entry: the
	// Unix epoch. File times never reach the layer, so neither
	// checkouts nor SOURCE_DATE_EPOCH change its digest.
	EntryModTime = time.Unix(0, 0).UTC()
	// DefaultCreated is the org.opencontainers.image.created annotation
	// when PackOptions.Created is zero (the CLI passes
	// SOURCE_DATE_EPOCH when it is set).
	DefaultCreated = time.Unix(0, 0).UTC()
)

// GzipLevel is the fixed compression level of content layers.
const GzipLevel = gzip.DefaultCompression

// LayerStats describes a written content layer.
type LayerStats struct {
	Digest digest.Digest // of the compressed layer
	Size   int64         // compressed bytes
	// TarDigest is the digest of the uncompressed tar, which the layer
	// descriptor carries for 'oras pull' (AnnotationORASDigest).
	TarDigest digest.Digest
	Files     int   // regular files, directories and symlinks
	Bytes     int64 // bytes of regular file content
}

// WriteLayer writes the folder dir to w as a reproducible tar+gzip
// content layer with every entry under root/ (the skill's name; "" puts
// entries at the top). Entries are in sorted order, with mtime
// EntryModTime, uid/gid 0, no user or group names, modes 0644 or 0755
// (a file keeps only whether it is executable) and directories 0755;
// the gzip header has no name or time, and a file of 16 KiB or more has
// deflate blocks of its own (see writeFile). Entries named .git (in any
// case: folders, gitlink files, links) and the relative
// paths in ignore are skipped. Symlinks are kept when their target is
// relative and stays inside dir; any other symlink, and any device,
// socket or pipe, is an error. Content is streamed: memory use does not
// grow with the folder's size. A folder that the default Limits would
// not let Unpack install is refused (see PackOptions.Limits).
func WriteLayer(ctx context.Context, w io.Writer, dir, root string, ignore ...string) (LayerStats, error) {
	return writeLayer(ctx, w, dir, root, Limits{}, ignore)
}

func writeLayer(ctx context.Context, w io.Writer, dir, root string, lim Limits, ignore []string) (LayerStats, error) {
	var st LayerStats
	lim = lim.WithDefaults()
	check := packCheck{dir: dir, skill: root, lim: lim}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(w, h)}
	zw, err := gzip.NewWriterLevel(cw, GzipLevel)
	if err != nil {
		return st, err
	}
	th := sha256.New()
	tw := tar.NewWriter(io.MultiWriter(zw, th))
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return st, fmt.Errorf("pack %s: %w", dir, err)
	}
	skip := map[string]bool{}
	for _, p := range ignore {
		skip[filepath.ToSlash(filepath.Clean(p))] = true
	}
	if root != "" {
		if err := tw.WriteHeader(dirHeader(root + "/")); err != nil {
			return st, err
		}
		st.Files++
	}
	err = filepath.WalkDir(realDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(realDir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		// Anything named .git (a repository, a submodule's gitlink
		// file, in any case: .GIT is .git on a case-insensitive file
		// system) is git's, and install refuses a skill holding one.
		if skip[rel] || strings.EqualFold(d.Name(), ".git") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		name := path.Join(root, rel)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := check.entry(rel, name, fi, &st); err != nil {
			return err
		}
		switch m := fi.Mode(); {
		case m.IsDir():
			st.Files++
			return tw.WriteHeader(dirHeader(name + "/"))
		case m.IsRegular():
			st.Files++
			st.Bytes += fi.Size()
			return writeFile(tw, zw, p, name, fi)
		case m&fs.ModeSymlink != 0:
			target, err := checkSymlink(realDir, p, rel)
			if err != nil {
				return err
			}
			if err := check.target(rel, target); err != nil {
				return err
			}
			st.Files++
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777, ModTime: EntryModTime})
		default:
			return &skill.Error{Path: p, Msg: fmt.Sprintf("%s is not a regular file, folder or symlink; remove it from the skill", m.Type()), Fix: "remove it from the skill folder"}
		}
	})
	var le *skill.Error
	if errors.As(err, &le) {
		return st, err // names the folder already
	}
	if err != nil {
		return st, fmt.Errorf("pack %s: %w", dir, err)
	}
	if err := tw.Close(); err != nil {
		return st, err
	}
	if err := zw.Close(); err != nil {
		return st, err
	}
	st.Digest = digest.NewDigest(digest.SHA256, h)
	st.Size = cw.n
	st.TarDigest = digest.NewDigest(digest.SHA256, th)
	return st, nil
}

func dirHeader(name string) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755, ModTime: EntryModTime}
}

// ownBlocks is the size from which a file's content gets deflate blocks
// of its own: about one block's worth, so that smaller files still
// share blocks (and Huffman tables) with their neighbours.
const ownBlocks = 16 << 10

// writeFile writes one regular file. Deflate picks one encoding for a
// whole block (stored, or Huffman-coded), so a block that mixes a tar
// header with the start of an already-compressed asset (an image, an
// archive) Huffman-codes all of it, for no gain, and every reader then
// decodes it symbol by symbol. Flushing the compressor before and after
// a large file gives it blocks of its own: incompressible content is
// stored as-is and inflating it is a copy. A flush costs a few bytes and
// keeps the compressor's window, so text compresses as before.
func writeFile(tw *tar.Writer, zw *gzip.Writer, p, name string, fi fs.FileInfo) error {
	mode := int64(0o644)
	if fi.Mode()&0o111 != 0 {
		mode = 0o755
	}
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: fi.Size(), Mode: mode, ModTime: EntryModTime}
	if err := tw.WriteHeader(hdr); err != nil {
		return err
	}
	own := fi.Size() >= ownBlocks
	if own {
		if err := zw.Flush(); err != nil {
			return err
		}
	}
	n, err := io.Copy(tw, f)
	if err != nil {
		return err
	}
	if n != fi.Size() {
		return fmt.Errorf("%s changed size while it was being packed", name)
	}
	if !own {
		return nil
	}
	// The tar padding after the content is not written yet: it goes
	// with the next entry's header. Zeros in the file's last block would
	// make Huffman-coding that block pay.
	return zw.Flush()
}

// checkSymlink returns the target of the symlink at p (rel inside dir)
// when it is relative and resolves inside dir.
func checkSymlink(dir, p, rel string) (string, error) {
	target, err := os.Readlink(p)
	if err != nil {
		return "", err
	}
	// An *skill.Error: a folder holding such a link is not a skill
	// anyone could install (exit 3), whether packed, published or
	// read as a local: or git source.
	if filepath.IsAbs(target) || strings.HasPrefix(target, "/") {
		return "", &skill.Error{Path: p, Msg: fmt.Sprintf("symlink to absolute path %q; make it relative or copy the file in", target), Fix: "make the link relative, or copy the file in"}
	}
	resolved, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", &skill.Error{Path: p, Msg: fmt.Sprintf("symlink to %q does not resolve: %v", target, err), Fix: "point the link at a file inside the skill, or remove it"}
	}
	if r, err := filepath.Rel(dir, resolved); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", &skill.Error{Path: p, Msg: fmt.Sprintf("symlink to %q leaves the skill folder; copy the file in instead", target), Fix: "copy the file into the skill folder instead of linking to it"}
	}
	return filepath.ToSlash(target), nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// hashReader hashes and counts what is read through it.
type hashReader struct {
	r io.Reader
	h hash.Hash
	n int64
}

func (r *hashReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.h.Write(p[:n])
	r.n += int64(n)
	return n, err
}

// spoolLayer writes the layer of dir into a temporary file in tmpDir and
// returns its path and stats. The caller removes the file.
func spoolLayer(ctx context.Context, dir, root, tmpDir string, lim Limits, ignore []string) (string, LayerStats, error) {
	f, err := os.CreateTemp(tmpDir, "skillpm-layer-*.tar.gz")
	if err != nil {
		return "", LayerStats{}, err
	}
	st, err := writeLayer(ctx, f, dir, root, lim, ignore)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", LayerStats{}, err
	}
	return f.Name(), st, nil
}

// Annotations on the content layer that make 'oras pull' (oras-go's file
// store) unpack it as a folder named by org.opencontainers.image.title.
const (
	// AnnotationORASUnpack set to "true" asks ORAS to extract the layer.
	AnnotationORASUnpack = "io.deis.oras.content.unpack"
	// AnnotationORASDigest is the digest of the uncompressed tar, which
	// ORAS checks while extracting.
	AnnotationORASDigest = "io.deis.oras.content.digest"
)

// layerDescriptor describes the content layer of the skill name: the
// layer is rooted at name/, so it is titled name, and 'oras pull REF'
// writes name/SKILL.md and the rest of the folder.
func layerDescriptor(name string, st LayerStats) ocispec.Descriptor {
	return ocispec.Descriptor{MediaType: MediaTypeContent, Digest: st.Digest, Size: st.Size, Annotations: map[string]string{
		ocispec.AnnotationTitle: name,
		AnnotationORASUnpack:    "true",
		AnnotationORASDigest:    st.TarDigest.String(),
	}}
}

var errNoName = errors.New("SKILL.md has no valid name")
