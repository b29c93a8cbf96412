package install

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/skillpm/skillpm/internal/statat"
	"golang.org/x/sys/unix"
)

// statTreeFast is StatTree's walk with the directory's own descriptor:
// each entry is stat'ed relative to its directory (fstatat) rather than
// by its full path, and directories are read without going through
// os.File (which registers every descriptor with the poller). On a
// warm no-op install this walk is most of the work. It returns ok false
// when anything is unusual (dir not a plain directory, an error), and
// the caller then walks the portable way, so both give the same
// fingerprint or the same error.
func statTreeFast(dir string) (entries []statEntry, ok bool) {
	buf := make([]byte, 8192) // one getdents buffer for the whole walk
	var walk func(fd int, rel string) bool
	walk = func(fd int, rel string) bool {
		names, ok := readNames(fd, buf)
		if !ok {
			return false
		}
		for _, name := range names {
			var st unix.Stat_t
			if err := unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				return false
			}
			r := name
			if rel != "" {
				r = path.Join(rel, name)
			}
			mode := statat.FileMode(st.Mode)
			entries = append(entries, statEntry{rel: r, mode: mode, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()})
			if mode.IsDir() {
				sub, err := syscall.Openat(fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
				if err != nil {
					return false
				}
				ok := walk(sub, r)
				syscall.Close(sub)
				if !ok {
					return false
				}
			}
		}
		return true
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, false
	}
	defer syscall.Close(fd)
	if !walk(fd, "") {
		return nil, false
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].rel < entries[j].rel })
	return entries, true
}

// A scanDir is a folder open for checking the skill folders in it by
// name, relative to its descriptor (openat, fstatat): the kernel then
// resolves one name per folder, not the whole path from the root.
type scanDir struct {
	fd  int
	dev uint64 // the folder's device
}

// cwdScanDir resolves names as the process does: absolute paths, and
// relative ones from the working folder.
var cwdScanDir = scanDir{fd: unix.AT_FDCWD}

// openScanDir opens dir for statListed, following links as a path
// through it would. If it cannot, the scanDir it returns finds nothing,
// and statUnchanged walks each folder by its path.
func openScanDir(dir string) scanDir {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return scanDir{fd: -1}
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		syscall.Close(fd)
		return scanDir{fd: -1}
	}
	return scanDir{fd: fd, dev: uint64(st.Dev)}
}

// is reports whether the folder is the one root has open.
func (d scanDir) is(root *os.Root) bool {
	var st unix.Stat_t
	if d.fd < 0 || unix.Fstat(d.fd, &st) != nil {
		return false
	}
	fi, err := root.Stat(".")
	if err != nil {
		return false
	}
	rs, ok := fi.Sys().(*syscall.Stat_t)
	return ok && uint64(rs.Dev) == uint64(st.Dev) && rs.Ino == st.Ino
}

// close closes the folder (cwdScanDir is left alone).
func (d scanDir) close() {
	if d.fd >= 0 {
		syscall.Close(d.fd)
	}
}

// fillsDirents reports whether the folder is on a local file system
// whose getdents fills the buffer until the folder ends (ext4, XFS,
// btrfs, tmpfs), so that readNamesOnce may trust a short read. Others
// (NFS, FUSE, overlays) may return less, and are always read to the end.
func (d scanDir) fillsDirents() bool {
	var st unix.Statfs_t
	if d.fd < 0 || unix.Fstatfs(d.fd, &st) != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		return true
	}
	return false
}

// statScratch is what statListed needs besides the folder: buffers kept
// from one folder to the next by a goroutine checking many.
type statScratch struct {
	ents []listed
	top  []string
	buf  [4096]byte
	line []byte
	path []byte // the entry statEntries stats, NUL-terminated (lstatAt)
	sum  []byte
	h    hash.Hash
}

// listed is one entry statListed stats.
type listed struct {
	rel    string
	folder bool // above a listed file
}

// statListed reports whether the folder name (in d) has the stat
// fingerprint want (StatTree's), statting only the entries the install
// record lists (files, its regular files and symlinks, and the folders
// above them) and listing only the folder itself: a fingerprint covers
// every entry's mode, size, mtime and ctime, and a folder's changes
// whenever an entry is created, removed or renamed in it, so the listed
// folders stand for their listings. The folder's own names are compared
// with the record's, since its stat is not in the fingerprint. That is
// about 12 system calls for a skill of four files in three folders,
// where StatTree makes about 23 (an open, two getdents and a close per
// folder). It opens the folder without following a link, so true also
// means it is a folder. False means "not known to be unchanged": an
// empty folder the record cannot list, a changed entry, a link where a
// folder was, anything unusual; the caller then walks the folder
// (StatTree) and reads it (HashTree) as before. Like the walk, it
// trusts timestamps: a change that lands within the file system's
// timestamp granularity of the install, keeping the size, is not seen.
//
// With known, the folder's own stat when a check before found it holding
// the names it should (folders.go), the names need not be listed again
// while the folder still has that stat: it is statted, and its entries
// through it by name, 8 system calls for that skill. seen is the
// folder's stat as this check found it before listing it, when its
// ctime is before since (else ""): a later check may take it as known.
func (d scanDir) statListed(s *statScratch, name string, files []string, want string, fills bool, known folderSeen, since int64) (ok bool, seen folderSeen) {
	if !s.entries(files) {
		return false, ""
	}
	if known != "" && d.statKnown(s, name, want, known) {
		return true, known
	}
	fd, err := syscall.Openat(d.fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false, ""
	}
	defer syscall.Close(fd)
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || !namesAre(fd, s.buf[:], s.top, fills) || !s.statEntries(fd, "", want) {
		return false, ""
	}
	// Remembered only on the target's file system (fillsDirents), not
	// one mounted on the folder, whose ctimes may not move.
	if uint64(st.Dev) == d.dev && st.Ctim.Nano() < since {
		seen = seenOf(&st)
	}
	return true, seen
}

// statKnown is statListed for a folder whose own stat was known when
// its names were checked: if it still has that stat (no entry of it
// created, removed or renamed since: that sets its ctime to the time of
// the change, which the user cannot set back), it stats the entries
// through it.
func (d scanDir) statKnown(s *statScratch, name, want string, known folderSeen) bool {
	var st unix.Stat_t
	s.path = append(append(s.path[:0], name...), 0)
	if lstatAt(d.fd, s.path, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return false
	}
	if b := packSeen(&st); string(b[:]) != string(known) {
		return false
	}
	return s.statEntries(d.fd, name, want)
}

// seenOf packs what folderSeen holds of st.
func seenOf(st *unix.Stat_t) folderSeen {
	b := packSeen(st)
	return folderSeen(b[:])
}

// packSeen is seenOf without making the string: comparing
// string(packSeen(st)[:]) with a folderSeen allocates nothing.
func packSeen(st *unix.Stat_t) (b [40]byte) {
	for i, v := range [...]uint64{uint64(st.Dev), uint64(st.Ino), uint64(st.Mode), uint64(st.Mtim.Nano()), uint64(st.Ctim.Nano())} {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	return b
}

// entries sets s.ents to the entries statListed stats for the record's
// files (sorted, a folder before what is in it) and s.top to those at
// the top; false when files cannot stand for the folder.
func (s *statScratch) entries(files []string) bool {
	if len(files) == 0 || len(files) > 1<<16 {
		return false
	}
	ents := s.ents[:0]
	for _, f := range files {
		ents = append(ents, listed{rel: f})
		for i := strings.LastIndexByte(f, '/'); i > 0; i = strings.LastIndexByte(f[:i], '/') {
			ents = append(ents, listed{rel: f[:i], folder: true})
		}
	}
	slices.SortFunc(ents, func(a, b listed) int {
		if c := strings.Compare(a.rel, b.rel); c != 0 {
			return c
		}
		if a.folder == b.folder {
			return 0
		}
		if a.folder {
			return -1
		}
		return 1
	})
	s.ents = slices.CompactFunc(ents, func(a, b listed) bool { return a.rel == b.rel })
	top := s.top[:0]
	for _, e := range s.ents {
		if strings.IndexByte(e.rel, '/') < 0 {
			top = append(top, e.rel) // sorted, as ents are
		}
	}
	s.top = top
	return true
}

// statEntries reports whether s.ents, statted relative to fd (in its
// folder dir, unless dir is ""), have the stat fingerprint want.
func (s *statScratch) statEntries(fd int, dir, want string) bool {
	if s.h == nil {
		s.h = sha256.New()
	}
	h := s.h
	h.Reset()
	line := s.line[:0]
	for _, e := range s.ents {
		var st unix.Stat_t
		s.path = s.path[:0]
		if dir != "" {
			s.path = append(append(s.path, dir...), '/')
		}
		s.path = append(append(s.path, e.rel...), 0)
		if err := lstatAt(fd, s.path, &st); err != nil {
			return false
		}
		mode := statat.FileMode(st.Mode)
		// Sorted, a folder comes before what is in it: one that is no
		// longer a folder (a link, say) ends the check before anything
		// is statted through it.
		if e.folder && !mode.IsDir() {
			return false
		}
		line = statEntry{rel: e.rel, mode: mode, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}.append(line[:0])
		h.Write(line)
	}
	s.line = line
	var sum [sha256.Size]byte
	s.sum = hex.AppendEncode(s.sum[:0], h.Sum(sum[:0]))
	hexSum, ok := strings.CutPrefix(want, "sha256:")
	return ok && string(s.sum) == hexSum
}

// namesAre reports whether the folder fd holds exactly the entries
// names (sorted, distinct), "." and ".." aside, reading it through buf
// in one getdents call where fills allows (scanDir.fillsDirents), else
// to the end. Entry names
// in a folder are distinct too, so as many entries as names, each one
// of them, is the same set.
func namesAre(fd int, buf []byte, names []string, fills bool) bool {
	n := 0
	for {
		got, err := syscall.ReadDirent(fd, buf)
		if err != nil {
			return false
		}
		if got <= 0 {
			return n == len(names)
		}
		ok := direntNames(buf[:got], func(name []byte) bool {
			if _, found := slices.BinarySearchFunc(names, name, compareName); !found {
				return false
			}
			n++
			return true
		})
		if !ok || n > len(names) {
			return false
		}
		// A short read, with room left for another entry, on a file
		// system that fills the buffer until the folder ends: it has
		// ended, and the call that would return 0 is saved.
		if fills && got <= len(buf)-maxDirent {
			return n == len(names)
		}
	}
}

// compareName compares s and b as strings.Compare(s, string(b)) does,
// without making the string.
func compareName(s string, b []byte) int {
	for i := range min(len(s), len(b)) {
		if s[i] != b[i] {
			return cmp.Compare(s[i], b[i])
		}
	}
	return cmp.Compare(len(s), len(b))
}

// direntNames calls fn with the name of each entry of a getdents64
// buffer but "." and "..", until fn returns false; it returns false then
// or when the buffer is malformed. The names are only valid during fn.
func direntNames(buf []byte, fn func(name []byte) bool) bool {
	const nameAt = 19 // after ino (8), off (8), reclen (2) and type (1)
	for len(buf) > 0 {
		if len(buf) < nameAt {
			return false
		}
		reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
		if reclen < nameAt || reclen > len(buf) {
			return false
		}
		rec := buf[:reclen]
		buf = buf[reclen:]
		if binary.NativeEndian.Uint64(rec[:8]) == 0 {
			continue // a removed entry, as syscall.ParseDirent skips
		}
		name := rec[nameAt:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if string(name) == "." || string(name) == ".." {
			continue
		}
		if !fn(name) {
			return false
		}
	}
	return true
}

// maxDirent is the largest record getdents64 returns: the 19 bytes
// before the name, a name of 255 bytes and its NUL, 8-byte aligned.
const maxDirent = 280

// readNames lists a directory's entries but "." and "..", reading
// through buf (the names are copies, so buf can be reused).
func readNames(fd int, buf []byte) ([]string, bool) {
	var names []string
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != nil {
			return nil, false
		}
		if n <= 0 {
			return names, true
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
	}
}
