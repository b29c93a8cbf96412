package registry

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
	"github.com/opencontainers/go-digest"

	"github.com/skillpm/skillpm/internal/filesums"
	"github.com/skillpm/skillpm/internal/httpbound"
	"github.com/skillpm/skillpm/skill"
)

// Limits bound what reading an artifact may cost. The zero value of each
// field means its default.
type Limits struct {
	// MaxFiles is the most archive entries unpacked. 0 means 10,000.
	MaxFiles int
	// MaxBytes is the most file content unpacked in total. 0 means
	// 512 MiB.
	MaxBytes int64
	// MaxFileSize is the largest single file. 0 means MaxBytes.
	MaxFileSize int64
	// MaxManifestSize is the largest manifest or index read. 0 means
	// 4 MiB (what registries accept).
	MaxManifestSize int64
	// MaxConfigSize is the largest config blob read. 0 means 1 MiB.
	MaxConfigSize int64
	// MaxBlobSize is the largest blob (a compressed content layer, a
	// file) downloaded. 0 means MaxBytes plus room for archive headers.
	MaxBlobSize int64
	// MaxPages is the most pages one listing (tags, referrers, a
	// registry's catalog) may take. 0 means 1,000.
	MaxPages int
	// MaxListItems is the most entries one listing may return. 0 means
	// 100,000.
	MaxListItems int
}

// maxPathLen bounds entry names and symlink targets; maxNameLen one
// element of a name, as most file systems do (NAME_MAX); maxDepth how
// many folders an entry may be in (the archive's top folder too), far
// more than any skill needs and short of PATH_MAX once installed.
const (
	maxPathLen = 4096
	maxNameLen = 255
	maxDepth   = 64
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.MaxFiles <= 0 {
		l.MaxFiles = 10000
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 512 << 20
	}
	if l.MaxFileSize <= 0 || l.MaxFileSize > l.MaxBytes {
		l.MaxFileSize = l.MaxBytes
	}
	if l.MaxManifestSize <= 0 {
		l.MaxManifestSize = 4 << 20
	}
	if l.MaxConfigSize <= 0 {
		l.MaxConfigSize = 1 << 20
	}
	if l.MaxBlobSize <= 0 {
		l.MaxBlobSize = l.expandLimit()
	}
	if l.MaxPages <= 0 {
		l.MaxPages = 1000
	}
	if l.MaxListItems <= 0 {
		l.MaxListItems = 100000
	}
	return l
}

// expandLimit bounds the decompressed stream: the file content allowed
// plus generous room for headers and padding. Past it the layer is
// treated as a gzip bomb.
func (l Limits) expandLimit() int64 { return l.MaxBytes + int64(l.MaxFiles)*4096 + 1<<20 }

// UnpackOptions control Unpack.
type UnpackOptions struct {
	Limits Limits
	// Digest and Size, when set, are what the compressed stream must
	// hash to and measure; nothing is moved into place before they are
	// checked.
	Digest digest.Digest
	Size   int64
	// Overwrite replaces a destination folder that is not empty.
	Overwrite bool
	// Check, when set, runs after the content has been verified and
	// before it is moved into place; an error from it aborts the unpack.
	Check func() error
	// Name, when set, is called after Check and gives the skill's name
	// as the artifact states it ("" for none): SKILL.md, when it names
	// a skill, must name that one (else agents would see another skill
	// than the one locked, perhaps shadowing it). A mismatch is
	// ErrNotSkill.
	Name func() string
}

// UnpackStats describe an unpacked skill.
type UnpackStats struct {
	Files int   // entries written
	Bytes int64 // file content written
	// Root is the folder the content was rooted at in the archive (the
	// skill's name), or "" when SKILL.md was at the top.
	Root string
}

// Unpack extracts a content layer (tar+gzip, or plain tar) from r into
// dst, so that dst/SKILL.md is the skill's. Content may be rooted at
// <name>/ or at the top, with or without "./". Unpacking is all or
// nothing: entries go to a staging folder beside dst, which is renamed
// into place only when every check has passed, and removed otherwise.
//
// Refused with an *UnsafeArchiveError: ".." or absolute names, symlinks
// that leave the skill, hardlinks to anything but an earlier file,
// devices and pipes, duplicate entries, and more files or bytes than
// opts.Limits allow. Setuid, setgid and sticky bits are dropped: files
// are written 0644, or 0755 when executable.
func Unpack(ctx context.Context, r io.Reader, dst string, opts UnpackOptions) (UnpackStats, error) {
	lim := opts.Limits.WithDefaults()
	st, err := newStager(dst, opts.Overwrite)
	if err != nil {
		return UnpackStats{}, err
	}
	defer st.cleanup()
	st.wantName = opts.Name
	st.recordSums(filesums.From(ctx))
	src := &errReader{r: r}
	vr := &hashReader{r: src, h: sha256.New()}
	if err := extractTar(ctx, st, vr, lim); err != nil {
		// The source failed (a timeout, a body longer than its
		// descriptor): say so rather than how the archive broke off.
		if src.err != nil {
			return UnpackStats{}, fmt.Errorf("read layer: %w", src.err)
		}
		// Bytes that do not match their digest were damaged or tampered
		// with on the way: say so rather than how they fail to parse.
		if ctx.Err() == nil && opts.Digest != "" && opts.Size > 0 {
			if verr := verifyRest(vr, opts.Digest, opts.Size, lim.MaxBlobSize); errors.Is(verr, ErrIntegrity) {
				return UnpackStats{}, verr
			}
		}
		return UnpackStats{}, err
	}
	if opts.Digest != "" || opts.Size > 0 {
		if err := verifyRest(vr, opts.Digest, opts.Size, lim.MaxBlobSize); err != nil {
			return UnpackStats{}, err
		}
	}
	if opts.Check != nil {
		if err := opts.Check(); err != nil {
			return UnpackStats{}, err
		}
	}
	return st.commit()
}

// errReader remembers the first error of r other than io.EOF.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// verifyRest reads what is left of the compressed stream (bounded by
// size) and checks the digest and size of all of it.
func verifyRest(vr *hashReader, want digest.Digest, size, max int64) error {
	// Without a size, the limit bounds the rest: a stream with no end
	// must not be read to it.
	rest := httpbound.LimitReader(vr, max-vr.n)
	if size > 0 {
		rest = io.LimitReader(vr, size-vr.n+1)
	}
	if _, err := io.Copy(io.Discard, rest); err != nil {
		var tl *httpbound.TooLongError
		switch {
		case errors.As(err, &tl) && size > 0:
			return fmt.Errorf("%w: layer is longer than its descriptor's %d bytes", ErrIntegrity, size)
		case errors.As(err, &tl):
			return fmt.Errorf("%w: layer is over the %d byte limit (limits.max_blob_size)", ErrIntegrity, max)
		}
		return err
	}
	if size > 0 && vr.n != size {
		return fmt.Errorf("%w: layer is %d bytes, its descriptor says %d", ErrIntegrity, vr.n, size)
	}
	if want != "" {
		if want.Algorithm() != digest.SHA256 {
			return fmt.Errorf("%w: unsupported digest algorithm %s", ErrIntegrity, want.Algorithm())
		}
		if got := digest.NewDigest(digest.SHA256, vr.h); got != want {
			return fmt.Errorf("%w: layer digest is %s, want %s", ErrIntegrity, got, want)
		}
	}
	return nil
}

// Readers are pooled: a pull of a hundred skills would otherwise make a
// hundred 64 KiB buffers and decompressors for the collector.
var (
	bufioPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}
	gzipPool  sync.Pool // *gzip.Reader
)

func extractTar(ctx context.Context, st *stager, r io.Reader, lim Limits) error {
	br := bufioPool.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		bufioPool.Put(br)
	}()
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := newGzipReader(br)
		if err != nil {
			return &UnsafeArchiveError{Reason: "invalid gzip stream: " + err.Error()}
		}
		defer gzipPool.Put(zr)
		zr.Multistream(false)
		src = zr
	}
	src = &expandGuard{r: src, left: lim.expandLimit()}
	tr := tar.NewReader(src)
	var files int
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var ue *UnsafeArchiveError
			if errors.As(err, &ue) {
				return err
			}
			return &UnsafeArchiveError{Reason: "not a valid tar+gzip layer: " + err.Error()}
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		files++
		if files > lim.MaxFiles {
			return &UnsafeArchiveError{Entry: hdr.Name, Reason: fmt.Sprintf("more than %d entries (limit max_files)", lim.MaxFiles)}
		}
		name, err := cleanEntryName(hdr.Name)
		if err != nil {
			return err
		}
		if name == "" { // "./" itself
			continue
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			err = st.mkdir(name)
		case tar.TypeReg, tar.TypeRegA:
			if hdr.Size > lim.MaxFileSize {
				return unsafeEntry(hdr.Name, "file is %d bytes, over the %d byte limit (max_file_size)", hdr.Size, lim.MaxFileSize)
			}
			if total+hdr.Size > lim.MaxBytes {
				return unsafeEntry(hdr.Name, "unpacked content exceeds the %d byte limit (max_bytes)", lim.MaxBytes)
			}
			total += hdr.Size
			err = st.writeFile(name, hdr.FileInfo().Mode(), tr, hdr.Size)
		case tar.TypeSymlink:
			if c := nameControl(hdr.Linkname); c != "" {
				return unsafeEntry(hdr.Name, "symlink target contains %s", c)
			}
			err = st.symlink(hdr.Name, name, hdr.Linkname)
		case tar.TypeLink:
			err = st.hardlink(hdr.Name, name, hdr.Linkname)
		case tar.TypeChar, tar.TypeBlock:
			return unsafeEntry(hdr.Name, "device files are not allowed in a skill")
		case tar.TypeFifo:
			return unsafeEntry(hdr.Name, "named pipes are not allowed in a skill")
		default:
			return unsafeEntry(hdr.Name, "unsupported entry type %q", hdr.Typeflag)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// newGzipReader takes a decompressor from the pool, or makes one.
func newGzipReader(r io.Reader) (*gzip.Reader, error) {
	if zr, ok := gzipPool.Get().(*gzip.Reader); ok {
		if err := zr.Reset(r); err != nil {
			gzipPool.Put(zr)
			return nil, err
		}
		return zr, nil
	}
	return gzip.NewReader(r)
}

// cleanEntryName turns an archive entry name into a clean slash path
// inside the archive, or refuses it. "./x" and "x/" are accepted.
func cleanEntryName(name string) (string, error) {
	switch {
	case name == "":
		return "", unsafeEntry(name, "empty name")
	case len(name) > maxPathLen:
		return "", unsafeEntry(name[:64]+"…", "name longer than %d bytes", maxPathLen)
	case strings.ContainsRune(name, 0):
		return "", unsafeEntry(name, "name contains a NUL byte")
	case strings.Contains(name, `\`):
		return "", unsafeEntry(name, "name contains a backslash")
	case nameControl(name) != "":
		return "", unsafeEntry(name, "name contains %s", nameControl(name))
	case strings.HasPrefix(name, "/") || filepath.VolumeName(name) != "":
		return "", unsafeEntry(name, "absolute path")
	}
	els := strings.Split(name, "/")
	for _, el := range els {
		switch {
		case el == "..":
			return "", unsafeEntry(name, "path contains \"..\"")
		case strings.EqualFold(el, ".git"):
			// In any case: .GIT is .git on a case-insensitive file
			// system. pack leaves such entries out.
			return "", unsafeEntry(name, "a skill never holds a .git folder or file: git, run anywhere below it, would take it for a repository and run the commands its config names")
		case len(el) > maxNameLen:
			return "", unsafeEntry(name[:64]+"…", "a file or folder name longer than %d bytes", maxNameLen)
		}
	}
	if len(els) > maxDepth+1 {
		return "", unsafeEntry(name[:64]+"…", "nested more than %d folders deep", maxDepth)
	}
	c := path.Clean(name)
	if c == "." {
		return "", nil
	}
	return c, nil
}

// nameControl describes what in an entry name or link target no file
// name of a skill may hold ("" when nothing): bytes that are not UTF-8,
// and characters that drive a terminal or break a line
// (skill.IsTerminalControl, plus tab and newline). Every command that
// lists files (list, doctor, audit, mcp's resources) would otherwise
// carry them to a terminal or an agent.
func nameControl(s string) string {
	if !utf8.ValidString(s) {
		return "bytes that are not UTF-8"
	}
	for _, r := range s {
		if r == '\t' || r == '\n' || skill.IsTerminalControl(r) {
			return fmt.Sprintf("the control character %U", r)
		}
	}
	return ""
}

// expandGuard stops a decompressed stream that grows past its limit.
type expandGuard struct {
	r    io.Reader
	left int64
}

func (g *expandGuard) Read(p []byte) (int, error) {
	if g.left <= 0 {
		return 0, &UnsafeArchiveError{Reason: "layer expands beyond its size limit (gzip bomb?)"}
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n, err := g.r.Read(p)
	g.left -= int64(n)
	return n, err
}

// fileMode is the mode skillpm writes: 0755 when any execute bit is set,
// else 0644. Setuid, setgid and sticky bits never survive.
func fileMode(m fs.FileMode) fs.FileMode {
	if m&0o111 != 0 {
		return 0o755
	}
	return 0o644
}

// findSkillRoot returns the folder under dir holding SKILL.md: dir
// itself, or its one subfolder that does.
func findSkillRoot(dir string) (string, error) {
	if fi, err := os.Lstat(filepath.Join(dir, skill.FileName)); err == nil && fi.Mode().IsRegular() {
		return "", nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(dir, e.Name(), skill.FileName)); err == nil && fi.Mode().IsRegular() {
			found = append(found, e.Name())
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("%w: no SKILL.md at the top of the content or in its one folder", ErrNotSkill)
	}
	return "", fmt.Errorf("%w: content holds %d skill folders (%s); expected one", ErrNotSkill, len(found), strings.Join(found, ", "))
}
