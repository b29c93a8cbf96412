package registry

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/skillpm/skillpm/internal/filesums"
	"github.com/skillpm/skillpm/skill"
)

// stager writes entries into a staging folder beside the destination and
// moves the skill into place only on commit. Every write goes through an
// os.Root, so no entry can reach outside the staging folder, whatever
// symlinks earlier entries made.
//
// Content rooted at <name>/ is written with that folder stripped, so the
// staging folder is the skill folder and commit is one rename: no folder
// made and removed per skill, which on a busy ext4 is what a pull of
// many small skills spends most on. An entry outside <name>/ turns the
// stripping off (the staged entries move into <name>/), so the result
// is always as if the archive's root had been staged as it is.
type stager struct {
	dst       string
	overwrite bool
	staging   string          // beside dst; removed by cleanup unless it became dst
	root      *os.Root        // on staging
	created   string          // topmost ancestor of dst this stager created
	kinds     map[string]byte // by entry name
	made      map[string]bool // folders created, with their parents, by path in staging
	links     int             // symlinks staged
	files     int
	bytes     int64
	committed bool
	wantName  func() string // UnpackOptions.Name

	decided bool   // whether the first entry has set strip
	strip   string // the top folder stripped from entry names, or ""

	// With a recorder (filesums.From the context), every file is hashed
	// as it is written, and the sums are reported on commit.
	rec  *filesums.Recorder
	sums map[string]filesums.Sum // by path in staging
}

// recordSums makes the stager hash what it writes and report it to r,
// when r is not nil.
func (s *stager) recordSums(r *filesums.Recorder) {
	if r != nil {
		s.rec, s.sums = r, map[string]filesums.Sum{}
	}
}

func newStager(dst string, overwrite bool) (*stager, error) {
	dst = filepath.Clean(dst)
	if fi, err := os.Lstat(dst); err == nil {
		if !fi.IsDir() {
			return nil, fmt.Errorf("%w: %s exists and is not a folder", ErrExists, dst)
		}
		if !overwrite {
			if entries, err := os.ReadDir(dst); err != nil || len(entries) > 0 {
				return nil, fmt.Errorf("%w: %s is not empty", ErrExists, dst)
			}
		}
	}
	s := &stager{dst: dst, overwrite: overwrite, kinds: map[string]byte{}, made: map[string]bool{}}
	parent := filepath.Dir(dst)
	s.created = topmostMissing(parent)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	var err error
	if s.staging, err = mkdirUnique(parent, ".skillpm-stage-"); err != nil {
		s.cleanup()
		return nil, err
	}
	if s.root, err = os.OpenRoot(s.staging); err != nil {
		s.cleanup()
		return nil, err
	}
	return s, nil
}

// mkdirUnique creates a new folder named prefix plus a random number in
// parent, as os.MkdirTemp does, but with mode 0755 (less the umask): it
// may become the skill folder, which others on the machine (an agent
// running as another user) read.
func mkdirUnique(parent, prefix string) (string, error) {
	for range 10000 {
		p := filepath.Join(parent, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		err := os.Mkdir(p, 0o755)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("mkdir in %s: no free name", parent)
}

// topmostMissing returns the highest ancestor of p (or p) that does not
// exist, or "".
func topmostMissing(p string) string {
	missing := ""
	for {
		if _, err := os.Lstat(p); err == nil {
			return missing
		}
		missing = p
		up := filepath.Dir(p)
		if up == p {
			return missing
		}
		p = up
	}
}

// cleanup removes everything the stager made unless it committed.
func (s *stager) cleanup() {
	if s.root != nil {
		s.root.Close()
	}
	if s.staging != "" {
		os.RemoveAll(s.staging)
	}
	if !s.committed && s.created != "" {
		os.RemoveAll(s.created)
	}
}

const (
	kindDir  = 'd'
	kindFile = 'f'
	kindLink = 'l'
)

func (s *stager) claim(name string, kind byte) error {
	// No entry is written through a symlink the archive made: a link is
	// judged by its entry name, which must be where it really lands. (A
	// link made through another link could land inside the skill while
	// its name says it is beside it.)
	for d := path.Dir(name); d != "."; d = path.Dir(d) {
		switch s.kinds[d] {
		case kindLink:
			return unsafeEntry(name, "path goes through the symlink %q", d)
		case kindFile:
			return unsafeEntry(name, "path goes through the file %q", d)
		}
	}
	if prev, ok := s.kinds[name]; ok {
		if prev == kindDir && kind == kindDir {
			return nil
		}
		return unsafeEntry(name, "duplicate entry")
	}
	s.kinds[name] = kind
	s.files++
	return nil
}

// fsPath returns where entry name (a clean archive path) goes in the
// staging folder. The first entry decides whether a top folder is
// stripped: a folder entry, or any entry inside a folder.
func (s *stager) fsPath(name string, dir bool) (string, error) {
	if !s.decided {
		s.decided = true
		if top, _, nested := strings.Cut(name, "/"); nested || dir {
			s.strip = top
		}
	}
	if s.strip == "" {
		return name, nil
	}
	if name == s.strip {
		return ".", nil
	}
	if rest, ok := strings.CutPrefix(name, s.strip+"/"); ok {
		return rest, nil
	}
	if err := s.unstrip(); err != nil {
		return "", err
	}
	return name, nil
}

// unstrip moves what was staged with the top folder stripped into that
// folder, for an archive that turned out to have more than one top entry.
func (s *stager) unstrip() error {
	tmp, err := mkdirUnique(s.staging, ".skillpm-top-")
	if err != nil {
		return err
	}
	tmp = filepath.Base(tmp)
	entries, err := os.ReadDir(s.staging)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != tmp {
			if err := s.root.Rename(e.Name(), filepath.Join(tmp, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := s.root.Rename(tmp, s.strip); err != nil {
		return err
	}
	if s.sums != nil {
		moved := make(map[string]filesums.Sum, len(s.sums))
		for k, v := range s.sums {
			moved[s.strip+"/"+k] = v
		}
		s.sums = moved
	}
	s.strip = ""
	clear(s.made)
	return nil
}

func (s *stager) mkdir(name string) error {
	if err := s.claim(name, kindDir); err != nil {
		return err
	}
	p, err := s.fsPath(name, true)
	if err != nil {
		return s.wrap(name, err)
	}
	return s.wrap(name, s.mkdirAll(p))
}

// mkdirAll creates dir and its parents through the root once; later
// entries in the same folder skip the syscalls. Only names this stager
// created as folders are remembered, never symlinks.
func (s *stager) mkdirAll(dir string) error {
	if dir == "." || s.made[dir] {
		return nil
	}
	if err := s.root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for d := dir; d != "." && !s.made[d]; d = path.Dir(d) {
		s.made[d] = true
	}
	return nil
}

func (s *stager) writeFile(name string, mode fs.FileMode, r io.Reader, size int64) error {
	if err := s.claim(name, kindFile); err != nil {
		return err
	}
	p, err := s.fsPath(name, false)
	if err != nil {
		return s.wrap(name, err)
	}
	if err := s.mkdirAll(path.Dir(p)); err != nil {
		return s.wrap(name, err)
	}
	f, err := s.root.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fileMode(mode))
	if err != nil {
		return s.wrap(name, err)
	}
	buf := copyBufs.Get().(*[]byte)
	// writerOnly hides f's ReadFrom, which would allocate its own buffer.
	var w io.Writer = writerOnly{f}
	var h hash.Hash
	if s.sums != nil {
		h = sha256.New()
		w = io.MultiWriter(f, h)
	}
	n, err := io.CopyBuffer(w, io.LimitReader(r, size), *buf)
	copyBufs.Put(buf)
	if err == nil && n < size {
		err = io.ErrUnexpectedEOF
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if n < size && (err == io.EOF || err == io.ErrUnexpectedEOF) {
			return unsafeEntry(name, "truncated: %d of %d bytes", n, size)
		}
		return s.wrap(name, err)
	}
	s.bytes += n
	if s.sums != nil {
		sum := filesums.Sum{Size: n}
		h.Sum(sum.SHA256[:0])
		s.sums[p] = sum
	}
	return nil
}

// copyBufs are the buffers files are written through.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, 128<<10); return &b }}

type writerOnly struct{ io.Writer }

func (s *stager) symlink(entry, name, target string) error {
	switch {
	case target == "" || strings.ContainsRune(target, 0) || len(target) > maxPathLen:
		return unsafeEntry(entry, "invalid symlink target")
	case strings.HasPrefix(target, "/") || filepath.VolumeName(target) != "" || strings.Contains(target, `\`):
		return unsafeEntry(entry, "symlink to absolute path %q", target)
	}
	if r := path.Join(path.Dir(name), target); r == ".." || strings.HasPrefix(r, "../") {
		return unsafeEntry(entry, "symlink to %q leaves the skill", target)
	}
	if err := s.claim(name, kindLink); err != nil {
		return err
	}
	p, err := s.fsPath(name, false)
	if err != nil {
		return s.wrap(name, err)
	}
	if err := s.mkdirAll(path.Dir(p)); err != nil {
		return s.wrap(name, err)
	}
	s.links++
	return s.wrap(name, s.root.Symlink(target, p))
}

func (s *stager) hardlink(entry, name, target string) error {
	t, err := cleanEntryName(target)
	if err != nil || t == "" {
		return unsafeEntry(entry, "hardlink to %q leaves the skill", target)
	}
	if s.kinds[t] != kindFile {
		return unsafeEntry(entry, "hardlink to %q, which is not an earlier file in the archive", target)
	}
	if err := s.claim(name, kindFile); err != nil {
		return err
	}
	p, err := s.fsPath(name, false)
	if err != nil {
		return s.wrap(name, err)
	}
	tp, err := s.fsPath(t, false) // an earlier entry: never unstrips
	if err != nil {
		return s.wrap(name, err)
	}
	if err := s.mkdirAll(path.Dir(p)); err != nil {
		return s.wrap(name, err)
	}
	if sum, ok := s.sums[tp]; ok {
		s.sums[p] = sum
	}
	return s.wrap(name, s.root.Link(tp, p))
}

// wrap turns an error os.Root raised for escaping into an unsafe-entry
// error naming the entry.
func (s *stager) wrap(name string, err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "escapes from parent") || strings.Contains(err.Error(), "path escapes") {
		return unsafeEntry(name, "path leaves the target through a symlink")
	}
	return fmt.Errorf("unpack %s: %w", name, err)
}

// commit checks the staged tree, then renames the skill into place: the
// staging folder itself when SKILL.md is at the archive's top, else its
// one skill folder (what is beside it goes with the staging folder).
func (s *stager) commit() (UnpackStats, error) {
	rootName, src := s.strip, s.staging
	if s.strip != "" {
		// The archive held one folder: it is the skill if it holds SKILL.md.
		if fi, err := os.Lstat(filepath.Join(s.staging, skill.FileName)); err != nil || !fi.Mode().IsRegular() {
			return UnpackStats{}, fmt.Errorf("%w: no SKILL.md at the top of the content or in its one folder", ErrNotSkill)
		}
	} else {
		var err error
		if rootName, err = findSkillRoot(s.staging); err != nil {
			return UnpackStats{}, err
		}
		src = filepath.Join(s.staging, filepath.FromSlash(rootName))
	}
	if err := s.checkSymlinks(src, rootName); err != nil {
		return UnpackStats{}, err
	}
	if s.wantName != nil {
		if want := s.wantName(); want != "" {
			if sk, err := skill.Load(src); err == nil && sk.Name() != "" && sk.Name() != want {
				return UnpackStats{}, fmt.Errorf("%w: the artifact is the skill %q, but its SKILL.md names the skill %q", ErrNotSkill, want, sk.Name())
			}
		}
	}
	s.root.Close()
	s.root = nil
	if _, err := os.Lstat(s.dst); err == nil {
		// An empty folder, or Overwrite: set it aside, then drop it. The
		// staging folder's name is unique, so is this one.
		old := s.staging + ".old"
		if err := os.Rename(s.dst, old); err != nil {
			return UnpackStats{}, err
		}
		if err := os.Rename(src, s.dst); err != nil {
			os.Rename(old, s.dst)
			return UnpackStats{}, err
		}
		os.RemoveAll(old)
	} else if err := os.Rename(src, s.dst); err != nil {
		return UnpackStats{}, err
	}
	if src == s.staging {
		s.staging = "" // it is dst now
	}
	s.committed = true
	s.reportSums(rootName)
	return UnpackStats{Files: s.files, Bytes: s.bytes, Root: rootName}, nil
}

// checkSymlinks makes sure every symlink in the skill stays inside the
// skill. It judges the links found on disk under src (the skill root,
// rootName in the archive), not the entries as named: each link's text
// is resolved lexically from where the link is, then followed through
// an os.Root on the skill root, which refuses to leave it.
func (s *stager) checkSymlinks(src, rootName string) error {
	if s.links == 0 {
		return nil
	}
	root, err := os.OpenRoot(src)
	if err != nil {
		return err
	}
	defer root.Close()
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		name := path.Join(rootName, rel) // as the archive names it
		target, err := os.Readlink(p)
		if err != nil {
			return err
		}
		if r := path.Join(path.Dir(rel), filepath.ToSlash(target)); r == ".." || strings.HasPrefix(r, "../") || path.IsAbs(target) {
			return unsafeEntry(name, "symlink to %q leaves the skill", target)
		}
		if _, err := root.Stat(filepath.FromSlash(rel)); err != nil {
			return unsafeEntry(name, "symlink does not resolve inside the skill")
		}
		return nil
	})
}

// reportSums tells the recorder the sums of the files now in dst: those
// under the skill root, which is the staging folder itself when a top
// folder was stripped.
func (s *stager) reportSums(rootName string) {
	if s.rec == nil {
		return
	}
	out := s.sums
	if s.strip == "" && rootName != "" {
		out = make(map[string]filesums.Sum, len(s.sums))
		for k, v := range s.sums {
			if rel, ok := strings.CutPrefix(k, rootName+"/"); ok {
				out[rel] = v
			}
		}
	}
	s.rec.Set(s.dst, out)
}
