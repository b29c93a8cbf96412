package install

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

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
			mode := fileMode(st.Mode)
			entries = append(entries, statEntry{rel: r, mode: mode, size: st.Size, mtime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec).UnixNano()})
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

// statListed reports whether the folder dir has the stat fingerprint want
// (StatTree's), statting only the entries the install record lists
// (files, its regular files and symlinks, and the folders above them)
// and listing only dir itself: a fingerprint covers every entry's mode,
// size and mtime, and a folder's mtime changes whenever an entry is
// created, removed or renamed in it, so the listed folders stand for
// their listings. dir's own names are compared with the record's, since
// its stat is not in the fingerprint. That is about 11 system calls for
// a skill of four files in three folders, where StatTree makes about 23
// (an open, two getdents and a close per folder). False means "not
// known to be unchanged": an empty folder the record cannot list, a
// changed entry, a link where a folder was, anything unusual; the caller
// then walks the folder (StatTree) and reads it (HashTree) as before.
// Like the walk, it trusts mtimes: a change that restores an entry's
// size and mtime (or lands within the file system's timestamp
// granularity of the install) is not seen.
func statListed(dir string, files []string, want string, fills bool) bool {
	if len(files) == 0 || len(files) > 1<<16 {
		return false
	}
	type listed struct {
		rel    string
		folder bool // above a listed file
	}
	ents := make([]listed, 0, len(files)+len(files)/2+2)
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
	ents = slices.CompactFunc(ents, func(a, b listed) bool { return a.rel == b.rel })
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer syscall.Close(fd)
	ok := false
	var buf [4096]byte
	var names []string
	if fills {
		names, ok = readNamesOnce(fd, buf[:])
	} else {
		names, ok = readNames(fd, buf[:])
	}
	if !ok {
		return false
	}
	slices.Sort(names)
	i := 0
	for _, e := range ents {
		if strings.IndexByte(e.rel, '/') < 0 {
			if i == len(names) || names[i] != e.rel {
				return false
			}
			i++
		}
	}
	if i != len(names) {
		return false
	}
	h := sha256.New()
	line := make([]byte, 0, 256)
	for _, e := range ents {
		var st unix.Stat_t
		if err := unix.Fstatat(fd, e.rel, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return false
		}
		mode := fileMode(st.Mode)
		// Sorted, a folder comes before what is in it: one that is no
		// longer a folder (a link, say) ends the check before anything
		// is statted through it.
		if e.folder && !mode.IsDir() {
			return false
		}
		line = statEntry{rel: e.rel, mode: mode, size: st.Size, mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec}.append(line[:0])
		h.Write(line)
	}
	return "sha256:"+hex.EncodeToString(h.Sum(nil)) == want
}

// maxDirent is the largest record getdents64 returns: the 19 bytes
// before the name, a name of 255 bytes and its NUL, 8-byte aligned.
const maxDirent = 280

// readNamesOnce is readNames in one getdents call where that call
// returns with room left for another entry: on a file system that fills
// the buffer until the folder ends (fillsDirents), that room means it
// ended, and the call that would return 0 is saved.
func readNamesOnce(fd int, buf []byte) ([]string, bool) {
	n, err := syscall.ReadDirent(fd, buf)
	if err != nil {
		return nil, false
	}
	if n <= 0 {
		return nil, true
	}
	_, _, names := syscall.ParseDirent(buf[:n], -1, nil)
	if n <= len(buf)-maxDirent {
		return names, true
	}
	more, ok := readNames(fd, buf)
	return append(names, more...), ok
}

// fillsDirents reports whether dir is on a local file system whose
// getdents fills the buffer until the folder ends (ext4, XFS, btrfs,
// tmpfs), so that readNamesOnce may trust a short read. Others (NFS,
// FUSE, overlays) may return less, and are always read to the end.
func fillsDirents(dir string) bool {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return false
	}
	switch uint32(st.Type) {
	case unix.EXT4_SUPER_MAGIC, unix.XFS_SUPER_MAGIC, unix.BTRFS_SUPER_MAGIC, unix.TMPFS_MAGIC:
		return true
	}
	return false
}

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

// fileMode converts a stat mode as os.Lstat does.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & syscall.S_IFMT {
	case syscall.S_IFBLK:
		mode |= fs.ModeDevice
	case syscall.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case syscall.S_IFDIR:
		mode |= fs.ModeDir
	case syscall.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case syscall.S_IFLNK:
		mode |= fs.ModeSymlink
	case syscall.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&syscall.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&syscall.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&syscall.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
