package install

import (
	"io/fs"
	"path"
	"sort"
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
